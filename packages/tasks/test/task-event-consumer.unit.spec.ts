import { beforeEach, describe, expect, it } from "vitest";
import { EventHeader } from "@msgx/core";
import { SimulatedCrashMarker } from "@msgx/core";
import type { ConsumedTaskRecord } from "../src/task-consume-decision.js";
import { TaskHandlerRegistry, type TaskEventHandler } from "../src/task-handler-registry.js";
import { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "../src/in-memory-task-consume-log-store.js";
import { taskEventMessage, type TaskEventMessage } from "../src/task-event.js";
import { TaskEventConsumer, type TaskConsumeFailpoint } from "../src/task-event-consumer.js";
import { TaskEventHeader } from "../src/task-headers.js";
import { newTaskRecord } from "../src/task-record.js";
import { ManualClock } from "@msgx/core/fakes";
import { TaskCallbackSender } from "../src/task-callback-sender.js";
import type { TaskCallback } from "../src/task-callback.js";

const POLICY = { maxAttempts: 3, initialBackoffMs: 1_000, backoffMultiplier: 2, maxBackoffMs: 60_000, headDeadlineMs: 600_000 };

const event = (taskId: string, handlerCode = "LMS_STOCK_AREA_CALL_TUBE", eventType: TaskEventMessage["eventType"] = "TASK_FINISHED"): TaskEventMessage =>
  taskEventMessage(
    { ...newTaskRecord({ taskId, ownerService: "LMS", handlerCode, bizType: "B", bizId: `B-${taskId}`, externalSystem: "ACS" }, 0, "T202607130001"), version: 2 },
    eventType,
    "ACS-E1",
    0,
  );
const record = (e: TaskEventMessage | string, owner = "LMS", deliveryId = "7"): ConsumedTaskRecord => ({
  topic: "TASK_EVENT_TOPIC",
  partition: 0,
  offset: "3",
  key: typeof e === "string" ? null : e.taskId,
  value: typeof e === "string" ? e : JSON.stringify(e),
  headers: { [TaskEventHeader.OWNER]: owner, [EventHeader.EVENT_ID]: deliveryId },
});
/** A record the task service republished: a replay (`msgx-replay`) or a redelivery (`msgx-redeliver`). */
const republished = (e: TaskEventMessage, header: string, value: string, deliveryId: string): ConsumedTaskRecord => {
  const r = record(e, "LMS", deliveryId);
  return { ...r, headers: { ...r.headers, [header]: value } };
};

describe("TaskEventConsumer", () => {
  let clock: ManualClock;
  let log: InMemoryTaskConsumeLogStore;
  let effects: string[];
  let failures: number;
  let crashAt: TaskConsumeFailpoint | null;
  let nudges: number;
  let consumer: TaskEventConsumer<InMemoryTaskTxHandle>;

  const handler = (code: string): TaskEventHandler<InMemoryTaskTxHandle> => ({
    handlerCode: code,
    onTaskFinished: async (e, ctx) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error(`stock point locked (attempt ${ctx.attempt})`);
      }
      ctx.tx.stage(() => effects.push(`${code}:finished:${e.taskId}`));
    },
    onTaskCancelled: async (e, ctx) => ctx.tx.stage(() => effects.push(`${code}:cancelled:${e.taskId}`)),
    // Only one of the two handlers takes progress events: the other acknowledges them unrun.
    ...(code === "LMS_SLITTER_DOWN_AGV"
      ? {
          onTaskExecuting: async (e: TaskEventMessage, ctx: { tx: InMemoryTaskTxHandle; attempt: number }) => {
            if (failures > 0) {
              failures -= 1;
              throw new Error(`progress table locked (attempt ${ctx.attempt})`);
            }
            ctx.tx.stage(() => effects.push(`${code}:executing:${e.taskId}`));
          },
          onTaskOverdue: async (e: TaskEventMessage, ctx: { tx: InMemoryTaskTxHandle }) => ctx.tx.stage(() => effects.push(`${code}:overdue:${e.overdueReason}:${e.taskId}`)),
        }
      : {}),
  });

  beforeEach(() => {
    clock = new ManualClock();
    log = new InMemoryTaskConsumeLogStore();
    effects = [];
    failures = 0;
    crashAt = null;
    nudges = 0;
    consumer = new TaskEventConsumer({
      owner: "LMS",
      registry: new TaskHandlerRegistry([handler("LMS_STOCK_AREA_CALL_TUBE"), handler("LMS_SLITTER_DOWN_AGV")]),
      log,
      clock,
      policy: POLICY,
      breaker: { initialMs: 500, maxMs: 4_000 },
      onCallbackDue: () => void (nudges += 1),
      failpoint: (name) => {
        if (crashAt === name) {
          crashAt = null;
          throw new SimulatedCrashMarker(name);
        }
      },
    });
  });

  it("routes by handler code and commits the effect with a SUCCEEDED row; a redelivery is acknowledged unrun", async () => {
    expect(await consumer.handle(record(event("T1")))).toEqual({ did: "succeeded", eventId: "T1#2", attempt: 1 });
    expect(await consumer.handle(record(event("T2", "LMS_SLITTER_DOWN_AGV", "TASK_CANCELLED")))).toMatchObject({ did: "succeeded" });
    expect(await consumer.handle(record(event("T1"), "LMS", "8"))).toEqual({ did: "duplicate", eventId: "T1#2" });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T1", "LMS_SLITTER_DOWN_AGV:cancelled:T2"]);
    const row = await log.get("T1#2");
    expect(row).toMatchObject({ taskId: "T1", handlerCode: "LMS_STOCK_AREA_CALL_TUBE", eventType: "TASK_FINISHED", status: "SUCCEEDED", errorMsg: null, deliveryEventId: "7", callbackStatus: "PENDING" });
    expect(nudges).toBe(2);
  });

  it("skips another owner's records without a log row", async () => {
    expect(await consumer.handle(record(event("T1"), "WMS"))).toEqual({ did: "skipped", reason: "owner WMS" });
    expect(await log.list({})).toEqual([]);
  });

  it("an unknown handler code is dead-lettered with the reason and reported, never dropped", async () => {
    const step = await consumer.handle(record(event("T3", "LMS_NO_SUCH")));
    expect(step).toMatchObject({ did: "dead", eventId: "T3#2" });
    const row = (await log.get("T3#2"))!;
    expect([row.status, row.callbackStatus, row.handlerCode]).toEqual(["DEAD", "PENDING", "LMS_NO_SUCH"]);
    expect(row.errorMsg).toBe('unknown handler code "LMS_NO_SUCH": no task handler is registered for it (registered: LMS_STOCK_AREA_CALL_TUBE, LMS_SLITTER_DOWN_AGV)');
    expect(row.payload).toEqual(event("T3", "LMS_NO_SUCH"));
    expect(await consumer.handle(record(event("T3", "LMS_NO_SUCH")))).toEqual({ did: "duplicate", eventId: "T3#2" });
  });

  it("an unreadable record of this owner is dead-lettered without a callback", async () => {
    expect(await consumer.handle(record("{broken"))).toMatchObject({ did: "dead", eventId: "unreadable:TASK_EVENT_TOPIC:event-7" });
    const row = (await log.get("unreadable:TASK_EVENT_TOPIC:event-7"))!;
    expect([row.status, row.callbackStatus, row.payload, row.taskId]).toEqual(["DEAD", null, "{broken", ""]);
  });

  it("handler failures roll back, back off (1 s, 2 s) and end DEAD with the last error once the budget is used", async () => {
    failures = 10;
    expect(await consumer.handle(record(event("T4")))).toMatchObject({ did: "retry", at: clock.now() + 1_000, outage: false });
    expect(await log.get("T4#2")).toMatchObject({ status: "FAILED", attempts: 1, errorMsg: "Error: stock point locked (attempt 1)" });
    expect(await consumer.handle(record(event("T4")))).toMatchObject({ did: "retry", at: clock.now() + 1_000, reason: "Error: stock point locked (attempt 1)" });
    clock.advance(1_000);
    expect(await consumer.handle(record(event("T4")))).toMatchObject({ did: "retry", at: clock.now() + 2_000 });
    clock.advance(2_000);
    const dead = await consumer.handle(record(event("T4")));
    expect(dead).toEqual({ did: "dead", eventId: "T4#2", reason: "attempts exhausted (3); last: Error: stock point locked (attempt 3)" });
    expect(await log.get("T4#2")).toMatchObject({ status: "DEAD", attempts: 3, callbackStatus: "PENDING" });
    expect(effects).toEqual([]);
  });

  it("a failure then a success applies the effect once and keeps the failure count", async () => {
    failures = 1;
    await consumer.handle(record(event("T5")));
    clock.advance(1_000);
    expect(await consumer.handle(record(event("T5")))).toEqual({ did: "succeeded", eventId: "T5#2", attempt: 2 });
    expect(await log.get("T5#2")).toMatchObject({ status: "SUCCEEDED", attempts: 1, errorMsg: null });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T5"]);
  });

  it("an outage of the consume log spends no attempt: the consumer pauses behind its breaker", async () => {
    log.faults.setDown(true);
    const first = await consumer.handle(record(event("T6")));
    expect(first).toMatchObject({ did: "retry", outage: true, at: clock.now() + 500 });
    expect(await consumer.handle(record(event("T6")))).toMatchObject({ did: "retry", outage: true, reason: "paused: dependency unavailable" });
    clock.advance(500);
    expect(await consumer.handle(record(event("T6")))).toMatchObject({ did: "retry", outage: true, at: clock.now() + 1_000 });
    for (let i = 0; i < 20; i++) {
      clock.advance(4_000);
      await consumer.handle(record(event("T6")));
    }
    log.faults.setDown(false);
    clock.advance(4_000);
    expect(await consumer.handle(record(event("T6")))).toMatchObject({ did: "succeeded", attempt: 1 });
    expect(consumer.breaker.openedAt).toBeNull();
  });

  it("a crash inside the handler transaction leaves nothing; after COMMIT the redelivery is a duplicate", async () => {
    crashAt = "consume.before-commit";
    await expect(consumer.handle(record(event("T7")))).rejects.toBeInstanceOf(SimulatedCrashMarker);
    expect([effects, await log.get("T7#2")]).toEqual([[], undefined]);
    crashAt = "consume.after-commit";
    await expect(consumer.handle(record(event("T7")))).rejects.toBeInstanceOf(SimulatedCrashMarker);
    expect(await consumer.handle(record(event("T7")))).toEqual({ did: "duplicate", eventId: "T7#2" });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T7"]);
  });

  it("an unknown COMMIT outcome pauses; the retry finds the committed row and does not run again", async () => {
    log.commitUnknownNext = true;
    expect(await consumer.handle(record(event("T8")))).toMatchObject({ did: "retry", outage: true });
    clock.advance(500);
    expect(await consumer.handle(record(event("T8")))).toEqual({ did: "duplicate", eventId: "T8#2" });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T8"]);
  });
  describe("TASK_EXECUTING", () => {
    it("runs onTaskExecuting in the consume log transaction; SUCCEEDED with no callback; a redelivery is a plain duplicate", async () => {
      const e = event("X1", "LMS_SLITTER_DOWN_AGV", "TASK_EXECUTING");
      expect(await consumer.handle(record(e))).toEqual({ did: "succeeded", eventId: "X1#2", attempt: 1 });
      expect(effects).toEqual(["LMS_SLITTER_DOWN_AGV:executing:X1"]);
      expect(await log.get("X1#2")).toMatchObject({ eventType: "TASK_EXECUTING", status: "SUCCEEDED", callbackStatus: null, callbackNextAt: null });
      expect(nudges).toBe(0);
      expect(await consumer.handle(record(e, "LMS", "8"))).toEqual({ did: "duplicate", eventId: "X1#2" });
      expect(await consumer.handle(republished(e, TaskEventHeader.REDELIVER, "watchdog", "9"))).toEqual({ did: "duplicate", eventId: "X1#2" });
      expect([effects.length, (await log.get("X1#2"))?.callbackStatus, await log.dueCallbacks(clock.now() + 1, 10)]).toEqual([1, null, []]);
    });

    it("a handler without onTaskExecuting acknowledges it: SUCCEEDED, nothing run, nothing reported", async () => {
      expect(await consumer.handle(record(event("X2", "LMS_STOCK_AREA_CALL_TUBE", "TASK_EXECUTING")))).toEqual({ did: "succeeded", eventId: "X2#2", attempt: 1 });
      expect([effects, (await log.get("X2#2"))?.status, (await log.get("X2#2"))?.callbackStatus, nudges]).toEqual([[], "SUCCEEDED", null, 0]);
    });

    it("an unknown handler code acknowledges progress (the final event is the one dead-lettered and reported)", async () => {
      expect(await consumer.handle(record(event("X3", "LMS_NO_SUCH", "TASK_EXECUTING")))).toEqual({ did: "succeeded", eventId: "X3#2", attempt: 1 });
      expect(await log.get("X3#2")).toMatchObject({ status: "SUCCEEDED", callbackStatus: null, handlerCode: "LMS_NO_SUCH" });
      const finished = { ...event("X3", "LMS_NO_SUCH", "TASK_FINISHED"), eventId: "X3#3", taskVersion: 3 };
      expect(await consumer.handle(record(finished, "LMS", "8"))).toMatchObject({ did: "dead", eventId: "X3#3" });
      expect(await log.get("X3#3")).toMatchObject({ status: "DEAD", callbackStatus: "PENDING" });
    });

    it("a handler failing until the budget is used: DEAD, but no FAILURE is reported for progress", async () => {
      failures = 3;
      const e = event("X4", "LMS_SLITTER_DOWN_AGV", "TASK_EXECUTING");
      expect(await consumer.handle(record(e))).toMatchObject({ did: "retry", at: clock.now() + 1_000 });
      clock.advance(1_000);
      expect(await consumer.handle(record(e))).toMatchObject({ did: "retry", at: clock.now() + 2_000 });
      clock.advance(2_000);
      expect(await consumer.handle(record(e))).toEqual({ did: "dead", eventId: "X4#2", reason: "attempts exhausted (3); last: Error: progress table locked (attempt 3)" });
      expect(await log.get("X4#2")).toMatchObject({ status: "DEAD", attempts: 3, callbackStatus: null });
      expect([effects, nudges, await log.dueCallbacks(clock.now() + 1, 10)]).toEqual([[], 0, []]);
    });
  });

  describe("TASK_OVERDUE", () => {
    it("runs onTaskOverdue in the consume log transaction with no callback; a handler without it acknowledges; a redelivery is a duplicate", async () => {
      const overdue = { ...event("O1", "LMS_SLITTER_DOWN_AGV", "TASK_OVERDUE"), overdueReason: "HEARTBEAT" as const, deadlineAt: null, lastProgressAt: "2026-07-13T08:00:00.000Z" };
      expect(await consumer.handle(record(overdue))).toEqual({ did: "succeeded", eventId: "O1#2", attempt: 1 });
      expect(effects).toEqual(["LMS_SLITTER_DOWN_AGV:overdue:HEARTBEAT:O1"]);
      expect(await log.get("O1#2")).toMatchObject({ eventType: "TASK_OVERDUE", status: "SUCCEEDED", callbackStatus: null });
      expect(await consumer.handle(record(overdue, "LMS", "8"))).toEqual({ did: "duplicate", eventId: "O1#2" });
      expect(await consumer.handle(record(event("O2", "LMS_STOCK_AREA_CALL_TUBE", "TASK_OVERDUE")))).toEqual({ did: "succeeded", eventId: "O2#2", attempt: 1 });
      expect(await consumer.handle(record(event("O3", "LMS_NO_SUCH", "TASK_OVERDUE")))).toEqual({ did: "succeeded", eventId: "O3#2", attempt: 1 });
      expect([effects.length, nudges, await log.dueCallbacks(clock.now() + 1, 10)]).toEqual([1, 0, []]);
    });
  });

  describe("replay of a dead letter (msgx-replay)", () => {
    const killed = async (taskId: string): Promise<TaskEventMessage> => {
      const e = event(taskId);
      failures = 3;
      await consumer.handle(record(e));
      clock.advance(1_000);
      await consumer.handle(record(e));
      clock.advance(2_000);
      expect(await consumer.handle(record(e))).toMatchObject({ did: "dead" });
      // The FAILURE went out and the task service recorded it.
      await log.settleCallback(e.eventId, "SENT", null, clock.now());
      return e;
    };

    it("reopens the DEAD row, runs the handler again as attempt 1 and reports SUCCESS", async () => {
      const e = await killed("R1");
      clock.advance(60_000);
      nudges = 0;
      expect(await consumer.handle(republished(e, TaskEventHeader.REPLAY, "rp-1", "20"))).toEqual({ did: "succeeded", eventId: "R1#2", attempt: 1 });
      expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:R1"]);
      expect(await log.get("R1#2")).toMatchObject({ status: "SUCCEEDED", attempts: 0, errorMsg: null, deliveryEventId: "20", callbackStatus: "PENDING", callbackNextAt: clock.now() });
      expect(nudges).toBe(1);
      const reported: TaskCallback[] = [];
      const sender = new TaskCallbackSender({ log, clock, port: { report: async (cb) => void reported.push(cb) } });
      expect((await sender.step()).sent).toEqual(["R1#2"]);
      expect(reported).toEqual([{ taskId: "R1", eventId: "R1#2", result: "SUCCESS", message: null }]);
      // The replay record again (a rebalance): settled, nothing runs twice.
      expect(await consumer.handle(republished(e, TaskEventHeader.REPLAY, "rp-1", "20"))).toMatchObject({ did: "duplicate", eventId: "R1#2" });
      expect(effects.length).toBe(1);
    });

    it("the rerun has the normal budget: failures back off, end DEAD again; the same replay record does not reopen it twice, a new replay does", async () => {
      const e = await killed("R2");
      failures = 10;
      const replay = republished(e, TaskEventHeader.REPLAY, "rp-2", "21");
      expect(await consumer.handle(replay)).toMatchObject({ did: "retry", at: clock.now() + 1_000 });
      const reopened = (await log.get("R2#2"))!;
      expect([reopened.status, reopened.attempts, reopened.callbackStatus]).toEqual(["FAILED", 1, null]);
      clock.advance(1_000);
      expect(await consumer.handle(replay)).toMatchObject({ did: "retry", at: clock.now() + 2_000 });
      clock.advance(2_000);
      expect(await consumer.handle(replay)).toEqual({ did: "dead", eventId: "R2#2", reason: "attempts exhausted (3); last: Error: stock point locked (attempt 3)" });
      expect(await log.get("R2#2")).toMatchObject({ status: "DEAD", attempts: 3, callbackStatus: "PENDING", deliveryEventId: "21" });
      failures = 0;
      expect(await consumer.handle(replay)).toEqual({ did: "duplicate", eventId: "R2#2" });
      expect(effects).toEqual([]);
      expect(await consumer.handle(republished(e, TaskEventHeader.REPLAY, "rp-3", "22"))).toEqual({ did: "succeeded", eventId: "R2#2", attempt: 1 });
      expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:R2"]);
    });

    it("a replay of an unknown handler code is dead-lettered again with a fresh FAILURE report", async () => {
      const e = event("R3", "LMS_NO_SUCH");
      await consumer.handle(record(e));
      await log.settleCallback("R3#2", "SENT", null, clock.now());
      expect(await consumer.handle(republished(e, TaskEventHeader.REPLAY, "rp-4", "23"))).toMatchObject({ did: "dead", eventId: "R3#2" });
      expect(await log.get("R3#2")).toMatchObject({ status: "DEAD", callbackStatus: "PENDING", deliveryEventId: "23" });
    });

    it("a replay header on a FAILED row waits out its backoff; on a SUCCEEDED row it is a duplicate", async () => {
      failures = 1;
      const e = event("R4");
      await consumer.handle(record(e));
      expect(await consumer.handle(republished(e, TaskEventHeader.REPLAY, "rp-5", "24"))).toMatchObject({ did: "retry", eventId: "R4#2", at: clock.now() + 1_000 });
      expect((await log.get("R4#2"))?.attempts).toBe(1);
      clock.advance(1_000);
      expect(await consumer.handle(record(e))).toMatchObject({ did: "succeeded", attempt: 2 });
      expect(await consumer.handle(republished(e, TaskEventHeader.REPLAY, "rp-5", "24"))).toEqual({ did: "duplicate", eventId: "R4#2" });
      expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:R4"]);
    });
  });

  describe("a redelivered event asks for the report again", () => {
    it("SENT becomes PENDING due now (msgx-redeliver or any duplicate); PENDING and REJECTED stay as they are", async () => {
      const e = event("D1");
      await consumer.handle(record(e));
      await log.deferCallback("D1#2", 2, clock.now() + 4_000, "task service 503");
      // PENDING: the report is on its way anyway.
      expect(await consumer.handle(republished(e, TaskEventHeader.REDELIVER, "watchdog", "30"))).toEqual({ did: "duplicate", eventId: "D1#2" });
      expect(await log.get("D1#2")).toMatchObject({ callbackStatus: "PENDING", callbackAttempts: 2 });
      await log.settleCallback("D1#2", "SENT", null, clock.now());
      clock.advance(600_000);
      nudges = 0;
      expect(await consumer.handle(republished(e, TaskEventHeader.REDELIVER, "watchdog", "31"))).toEqual({ did: "duplicate", eventId: "D1#2", callbackReopened: true });
      expect(await log.get("D1#2")).toMatchObject({ status: "SUCCEEDED", callbackStatus: "PENDING", callbackAttempts: 2, callbackNextAt: clock.now(), callbackError: null });
      expect([nudges, effects.length]).toEqual([1, 1]);
      // A plain duplicate (no header) after the report was SENT again also asks again.
      await log.settleCallback("D1#2", "SENT", null, clock.now());
      expect(await consumer.handle(record(e, "LMS", "32"))).toEqual({ did: "duplicate", eventId: "D1#2", callbackReopened: true });
      // A REJECTED report stays refused.
      const d = event("D2", "LMS_NO_SUCH");
      await consumer.handle(record(d));
      await log.settleCallback("D2#2", "REJECTED", "no such task", clock.now());
      expect(await consumer.handle(republished(d, TaskEventHeader.REDELIVER, "watchdog", "33"))).toEqual({ did: "duplicate", eventId: "D2#2" });
      expect(await log.get("D2#2")).toMatchObject({ status: "DEAD", callbackStatus: "REJECTED", callbackError: "no such task" });
    });

    it("the reopened FAILURE of a dead letter is reported again by the callback sender", async () => {
      const e = event("D3", "LMS_NO_SUCH");
      await consumer.handle(record(e));
      const reported: TaskCallback[] = [];
      const sender = new TaskCallbackSender({ log, clock, port: { report: async (cb) => void reported.push(cb) } });
      expect((await sender.step()).sent).toEqual(["D3#2"]);
      expect(await consumer.handle(republished(e, TaskEventHeader.REDELIVER, "watchdog", "34"))).toMatchObject({ callbackReopened: true });
      expect((await sender.step()).sent).toEqual(["D3#2"]);
      expect(reported.map((r) => [r.eventId, r.result])).toEqual([["D3#2", "FAILURE"], ["D3#2", "FAILURE"]]);
    });
  });
});
