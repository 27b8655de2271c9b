import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryStatus, MsgxError } from "@msgx/core";
import type { TaskCallbackEntry } from "./task-callback.js";
import { evolveTask } from "./task-machine.js";
import { TaskStatus, type TaskRecord } from "./task-record.js";
import { DEFAULT_TASK_ROUTING, taskEventDraft } from "./task-routing-config.js";
import { TaskService } from "./task-service.js";
import type { TaskStore } from "./task-store.js";
import { clock, expectMsgxError, feedbackEntry, sampleNewTask, T0, type TaskStoreContractSubject, numberedTask } from "./task-store-contract-fixtures.js";
import { describeTaskStoreOverdue } from "./task-store-overdue.contract.js";
import { describeTaskHistoryContract } from "./task-history.contract.js";
import { describeTaskStoreQueries } from "./task-store-queries.contract.js";

/**
 * The behaviour every `TaskStore` must show (see the port's JSDoc). The in-memory fake runs it in
 * a unit spec; the PostgreSQL store runs it against a fresh schema per test.
 */
export function describeTaskStoreContract(name: string, factory: () => Promise<TaskStoreContractSubject>): void {
  describe(`TaskStore contract: ${name}`, () => {
    let subject: TaskStoreContractSubject;
    let store: TaskStore;
    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.close();
    });

    const insert = async (task: TaskRecord): Promise<boolean> => store.transaction((tx) => tx.insertTask(task));

    describeTaskStoreQueries(() => store);
    describeTaskStoreOverdue(() => store);
    describeTaskHistoryContract(() => store);

    it("insertTask stores every field intact; a taken id returns false and changes nothing", async () => {
      const task = numberedTask(sampleNewTask("T-1"), T0);
      expect(await insert(task)).toBe(true);
      expect(await store.get("T-1")).toEqual(task);
      expect(await insert({ ...task, bizId: "other" })).toBe(false);
      expect(await store.get("T-1")).toEqual(task);
      expect(await store.get("T-unknown")).toBeUndefined();
      await store.transaction(async (tx) => expect(await tx.lockTask("T-unknown")).toBeUndefined());
    });

    it("round-trips nulls, empty payloads and every status", async () => {
      const base = numberedTask(sampleNewTask("T-2", { externalTaskType: null, payload: {} }), T0);
      await insert(base);
      expect(await store.get("T-2")).toEqual(base);
      let task = base;
      for (const t of [
        { type: "dispatched", externalTaskNo: "ACS-2" },
        { type: "executing" },
        { type: "finished", eventId: "T-2#4", reason: "done 完成" },
        { type: "callbackFailed", error: "handler dead" },
        { type: "callbackSucceeded" },
      ] as const) {
        const next = evolveTask(task, t, T0 + task.version * 1_000);
        await store.transaction((tx) => tx.updateTask(next));
        expect(await store.get("T-2")).toEqual(next);
        task = next;
      }
      expect(task.status).toBe(TaskStatus.FINISHED);
    });

    it("updateTask accepts only the stored version's successor; a refused update commits nothing", async () => {
      const task = numberedTask(sampleNewTask("T-3"), T0);
      await insert(task);
      const next = evolveTask(task, { type: "dispatched", externalTaskNo: "ACS-3" }, T0 + 1);
      await expectMsgxError(
        store.transaction(async (tx) => {
          await tx.insertFeedback(feedbackEntry("T-3", "E-0"));
          await tx.updateTask({ ...next, version: task.version + 2 });
        }),
        ["CONFLICT"],
      );
      expect(await store.get("T-3")).toEqual(task);
      expect(await store.feedback("T-3")).toEqual([]);
      await store.transaction((tx) => tx.updateTask(next));
      await expectMsgxError(
        store.transaction((tx) => tx.updateTask(next)),
        ["CONFLICT"],
      );
      expect(await store.get("T-3")).toEqual(next);
    });

    it("the feedback log is unique on taskId + externalEventId + status", async () => {
      await insert(numberedTask(sampleNewTask("T-4"), T0));
      const a = feedbackEntry("T-4", "E-1");
      const b = feedbackEntry("T-4", "E-1", { status: "EXECUTING", eventId: null, outcome: "IGNORED", reason: "late" });
      await store.transaction(async (tx) => {
        expect(await tx.findFeedback(a)).toBeUndefined();
        await tx.insertFeedback(a);
        await tx.insertFeedback(b);
      });
      await store.transaction(async (tx) => {
        expect(await tx.findFeedback(a)).toEqual(a);
        expect(await tx.findFeedback(b)).toEqual(b);
        expect(await tx.findFeedback({ taskId: "T-4", externalEventId: "E-1", status: "CANCELLED" })).toBeUndefined();
        expect(await tx.findFeedback({ taskId: "T-4", externalEventId: "E-2", status: "FINISHED" })).toBeUndefined();
      });
      await expectMsgxError(
        store.transaction((tx) => tx.insertFeedback({ ...a, outcome: "IGNORED" })),
        ["INFRA", "CONFLICT"],
      );
      expect(await store.feedback("T-4")).toEqual([a, b]);
    });

    it("a transaction that throws leaves nothing: no task change, no log rows, no outbox rows", async () => {
      const task = numberedTask(sampleNewTask("T-5"), T0);
      await insert(task);
      const next = evolveTask(task, { type: "finished", eventId: "T-5#2", reason: null }, T0 + 1);
      const draft = taskEventDraft(next, "TASK_FINISHED", "E-5", DEFAULT_TASK_ROUTING, T0 + 1);
      await expect(
        store.transaction(async (tx) => {
          await tx.updateTask(next);
          await tx.insertFeedback(feedbackEntry("T-5", "E-5"));
          await tx.insertCallback({ taskId: "T-5", eventId: "T-5#2", result: "SUCCESS", message: null, outcome: "REJECTED", reason: "x", receivedAt: T0 });
          await tx.appendEvents([draft]);
          throw new Error("business rule failed after the writes");
        }),
      ).rejects.toThrow("business rule failed");
      expect(await store.get("T-5")).toEqual(task);
      expect(await store.feedback("T-5")).toEqual([]);
      expect(await store.callbacks("T-5")).toEqual([]);
      expect(await subject.outboxEvents()).toEqual([]);
    });

    it("a fenced transaction commits while its fence is the leadership epoch; after a takeover it is FENCED and writes nothing", async () => {
      const task = numberedTask(sampleNewTask("T-F"), T0);
      const epoch = await subject.bumpEpoch();
      expect(await store.transaction((tx) => tx.insertTask(task), { fence: epoch })).toBe(true);
      expect(await store.get("T-F")).toEqual(task);
      await subject.bumpEpoch();
      // The deposed leader's held callback: FAILURE recorded again over what the new leader wrote.
      const next = evolveTask(task, { type: "finished", eventId: "T-F#2", reason: null }, T0 + 1);
      const draft = taskEventDraft(next, "TASK_FINISHED", "E-F", DEFAULT_TASK_ROUTING, T0 + 1);
      await expectMsgxError(
        store.transaction(async (tx) => {
          await tx.updateTask(next);
          await tx.insertCallback({ taskId: "T-F", eventId: "T-F#2", result: "FAILURE", message: "late", outcome: "RECORDED", reason: null, receivedAt: T0 });
          await tx.appendEvents([draft]);
        }, { fence: epoch }),
        ["FENCED"],
      );
      expect(await store.get("T-F")).toEqual(task);
      expect(await store.callbacks("T-F")).toEqual([]);
      expect(await subject.outboxEvents()).toEqual([]);
      const current = await subject.bumpEpoch();
      await store.transaction((tx) => tx.updateTask(next), { fence: current });
      expect(await store.get("T-F")).toEqual(next);
    });

    it("a committed transaction shows the task, its log row and its PENDING outbox rows together", async () => {
      const task = numberedTask(sampleNewTask("T-6"), T0);
      await insert(task);
      const next = evolveTask(task, { type: "finished", eventId: "T-6#2", reason: "ok" }, T0 + 5);
      const first = taskEventDraft(next, "TASK_FINISHED", "E-6", DEFAULT_TASK_ROUTING, T0 + 5);
      const second = { ...first, partitionKey: "T-6b", stateVersion: 9 };
      await store.transaction(async (tx) => {
        await tx.updateTask(next);
        await tx.insertFeedback(feedbackEntry("T-6", "E-6"));
        await tx.appendEvents([first, second]);
      });
      expect(await store.get("T-6")).toEqual(next);
      expect(await store.feedback("T-6")).toHaveLength(1);
      const events = await subject.outboxEvents();
      expect(events.map((e) => [e.target, e.partitionKey, e.eventType, e.stateVersion, e.sourceMsgId, e.status, e.attempts])).toEqual([
        [first.target, "T-6", "UPSERT", 2, 0, DeliveryStatus.PENDING, 0],
        [first.target, "T-6b", "UPSERT", 9, 0, DeliveryStatus.PENDING, 0],
      ]);
      expect(events[0]!.eventId).toBeLessThan(events[1]!.eventId);
      expect(events.map((e) => e.headers)).toEqual([first.headers, first.headers]);
      expect(first.headers).toEqual({ "msgx-owner": next.ownerService, "msgx-task-event": "TASK_FINISHED", "msgx-handler-code": next.handlerCode });
      expect(events[0]!.payload).toEqual(first.payload);
      expect(events[0]!.sentAt).toBeNull();
    });

    it("the callback log keeps every callback, repeats included, oldest first", async () => {
      await insert(numberedTask(sampleNewTask("T-7"), T0));
      const entry = (outcome: TaskCallbackEntry["outcome"], at: number): TaskCallbackEntry => ({
        taskId: "T-7",
        eventId: "T-7#2",
        result: "SUCCESS",
        message: outcome === "APPLIED" ? "业务处理成功" : null,
        outcome,
        reason: outcome === "DUPLICATE" ? "task already FINISHED" : null,
        receivedAt: at,
      });
      await store.transaction((tx) => tx.insertCallback(entry("APPLIED", T0 + 1)));
      await store.transaction((tx) => tx.insertCallback(entry("DUPLICATE", T0 + 2)));
      expect(await store.callbacks("T-7")).toEqual([entry("APPLIED", T0 + 1), entry("DUPLICATE", T0 + 2)]);
      expect(await store.callbacks("T-other")).toEqual([]);
    });

    it("lockTask serializes transactions on one task: the second sees the first's commit", async () => {
      await insert(numberedTask(sampleNewTask("T-8"), T0));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let firstLocked!: () => void;
      const locked = new Promise<void>((r) => (firstLocked = r));
      const seen: number[] = [];
      const bump = (wait: boolean) =>
        store.transaction(async (tx) => {
          const t = (await tx.lockTask("T-8"))!;
          seen.push(t.version);
          if (wait) {
            firstLocked();
            await gate;
          }
          await tx.updateTask({ ...t, version: t.version + 1, updatedAt: t.updatedAt + 1 });
        });
      const a = bump(true);
      await locked;
      const b = bump(false);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual([1]);
      release();
      await Promise.all([a, b]);
      expect(seen).toEqual([1, 2]);
      expect((await store.get("T-8"))!.version).toBe(3);
    });

    it("round-trips the dispatch and watchdog fields and FAILED", async () => {
      const base = numberedTask(sampleNewTask("T-11"), T0, T0 + 500);
      await insert(base);
      expect(await store.get("T-11")).toEqual(base);
      const failed = evolveTask(base, { type: "dispatchFailed", error: "ACS 503 忙", nextDispatchAt: T0 + 2_500 }, T0 + 1_000);
      await store.transaction((tx) => tx.updateTask(failed));
      expect(await store.get("T-11")).toEqual(failed);
      expect([failed.dispatchAttempts, failed.nextDispatchAt, failed.dispatchError]).toEqual([1, T0 + 2_500, "ACS 503 忙"]);
      const refused = evolveTask(failed, { type: "dispatchRefused", reason: "unknown task type" }, T0 + 3_000);
      await store.transaction((tx) => tx.updateTask(refused));
      expect(await store.get("T-11")).toEqual(refused);
      expect([refused.status, refused.nextDispatchAt, refused.statusReason]).toEqual([TaskStatus.FAILED, null, "unknown task type"]);
      await insert(numberedTask(sampleNewTask("T-12"), T0));
      const t12 = (await store.get("T-12"))!;
      const pending = evolveTask(t12, { type: "finished", eventId: "T-12#2", reason: null }, T0 + 1);
      const alerted = evolveTask(pending, { type: "callbackRedelivered" }, T0 + 9_000);
      await store.transaction((tx) => tx.updateTask(pending));
      await store.transaction((tx) => tx.updateTask(alerted));
      expect(await store.get("T-12")).toEqual(alerted);
      expect([alerted.callbackAlerts, alerted.callbackAlertAt]).toEqual([1, T0 + 9_000]);
    });

    it("the replay audit keeps every row by id; a taken id fails the transaction", async () => {
      const entry = { replayId: "R-1", by: "ops@example", reason: "handler fixed 修复", filter: { owner: "LMS", taskIds: ["T-a", "T-b"] }, taskIds: ["T-a", "T-b"], at: T0 + 7 };
      await store.transaction((tx) => tx.insertReplay(entry));
      expect(await store.replay("R-1")).toEqual(entry);
      expect(await store.replay("R-2")).toBeUndefined();
      await expectMsgxError(
        store.transaction((tx) => tx.insertReplay({ ...entry, reason: "again" })),
        ["INFRA", "CONFLICT"],
      );
      expect(await store.replay("R-1")).toEqual(entry);
    });

    it("through TaskService: FINISHED once, one outbox event, duplicates and callbacks harmless", async () => {
      const service = new TaskService({ store, clock });
      await service.create(sampleNewTask("T-9"));
      expect((await service.create(sampleNewTask("T-9"))).created).toBe(false);
      await service.markDispatched("T-9", "ACS-9");
      const first = await service.feedback({ taskId: "T-9", externalEventId: "ACS-E1", status: "FINISHED" });
      const repeat = await service.feedback({ taskId: "T-9", externalEventId: "ACS-E1", status: "FINISHED" });
      const other = await service.feedback({ taskId: "T-9", externalEventId: "ACS-E2", status: "FINISHED" });
      expect([first.entry.outcome, repeat.duplicate, other.entry.outcome]).toEqual(["APPLIED", true, "IGNORED"]);
      expect(first.task.status).toBe(TaskStatus.FINISHED_PENDING_CALLBACK);
      const events = await subject.outboxEvents();
      expect(events).toHaveLength(1);
      expect((events[0]!.payload as { eventId: string }).eventId).toBe("T-9#3");
      const ok = await service.callback({ taskId: "T-9", eventId: "T-9#3", result: "SUCCESS" });
      const again = await service.callback({ taskId: "T-9", eventId: "T-9#3", result: "SUCCESS" });
      expect([ok.entry.outcome, again.entry.outcome, again.task.status]).toEqual(["APPLIED", "DUPLICATE", TaskStatus.FINISHED]);
      expect(await store.feedback("T-9")).toHaveLength(2);
      expect(await store.callbacks("T-9")).toHaveLength(2);
    });

    it("nextTaskSeq counts per day from 1 and a rolled-back count is not seen twice; getByTaskNo finds a task; a taken number fails the transaction", async () => {
      expect(await store.transaction(async (tx) => [await tx.nextTaskSeq("20260713"), await tx.nextTaskSeq("20260713"), await tx.nextTaskSeq("20260714")])).toEqual([1, 2, 1]);
      await expectMsgxError(
        store.transaction(async (tx) => {
          await tx.nextTaskSeq("20260713");
          throw new MsgxError("INFRA", "rolled back");
        }),
        ["INFRA"],
      );
      const third = await store.transaction((tx) => tx.nextTaskSeq("20260713"));
      expect([3, 4]).toContain(third);
      const task = numberedTask(sampleNewTask("T-N1"), T0);
      await insert(task);
      expect(await store.getByTaskNo(task.taskNo)).toEqual(task);
      expect(await store.getByTaskNo("T199901019999")).toBeUndefined();
      await expectMsgxError(insert({ ...numberedTask(sampleNewTask("T-N2"), T0), taskNo: task.taskNo }), ["INFRA", "CONFLICT"]);
      expect(await store.get("T-N2")).toBeUndefined();
    });

    it("through TaskService: concurrent creates get distinct numbers of the day in the seed's form; a repeat keeps its number; the day is the zone's", async () => {
      let now = Date.UTC(2026, 6, 12, 17, 0, 0); // 2026-07-13 01:00 in Asia/Shanghai, still the 12th in UTC
      const service = new TaskService({ store, clock: { now: () => now, monotonic: () => 0 }, taskNoTimeZone: "Asia/Shanghai" });
      const ids = Array.from({ length: 6 }, (_, i) => `T-C${i}`);
      const created = await Promise.all(ids.map((id) => service.create(sampleNewTask(id))));
      const numbers = created.map((c) => c.task.taskNo);
      expect([...numbers].sort()).toEqual(["T202607130001", "T202607130002", "T202607130003", "T202607130004", "T202607130005", "T202607130006"]);
      const repeat = await service.create(sampleNewTask("T-C3"));
      expect([repeat.created, repeat.task.taskNo]).toEqual([false, numbers[3]]);
      expect((await service.getByTaskNo(numbers[3]!))?.taskId).toBe("T-C3");
      expect((await store.get("T-C3"))?.taskNo).toBe(numbers[3]);
      now = Date.UTC(2026, 6, 13, 16, 0, 0); // 2026-07-14 00:00 in Asia/Shanghai
      expect((await service.create(sampleNewTask("T-C9"))).task.taskNo).toBe("T202607140001");
      const utc = new TaskService({ store, clock: { now: () => now, monotonic: () => 0 } });
      expect((await utc.create(sampleNewTask("T-C10"))).task.taskNo).toBe("T202607130007");
    });

    it("through TaskService: concurrent FINISHED reports publish exactly one event", async () => {
      const service = new TaskService({ store, clock });
      await service.create(sampleNewTask("T-10"));
      const answers = await Promise.all(
        ["E-a", "E-b", "E-c", "E-a"].map((id) => service.feedback({ taskId: "T-10", externalEventId: id, status: "FINISHED" })),
      );
      expect(answers.filter((a) => a.entry.outcome === "APPLIED" && !a.duplicate)).toHaveLength(1);
      expect(await subject.outboxEvents()).toHaveLength(1);
      expect(await store.feedback("T-10")).toHaveLength(3);
    });
  });
}
