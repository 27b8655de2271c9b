import { beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { TaskStatus } from "../src/task-record.js";
import { isTaskRequestError } from "../src/task-request-error.js";
import { TaskService } from "../src/task-service.js";
import { sampleNewTask } from "../src/task-store-contract-fixtures.js";
import { TaskWatchdogJob } from "../src/task-watchdog-job.js";
import type { TaskEventMessage } from "../src/task-event.js";

const refusal = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "accepted",
    (e: unknown) => (isTaskRequestError(e) ? e.code : isMsgxError(e) ? e.kind : String(e)),
  );
const MIN = 60_000;

describe("owners at create", () => {
  const make = () => {
    const clock = new ManualClock();
    const store = new InMemoryTaskStore(clock, new InMemoryPipelineStore(clock));
    return { clock, store };
  };

  it("topic-per-owner: an owner outside routing.owners is UNKNOWN_OWNER and nothing is stored; a known one is created", async () => {
    const { clock, store } = make();
    const service = new TaskService({ store, clock, routing: { mode: "topic-per-owner", topicPattern: "{owner}_TASK_EVENT_TOPIC", owners: ["LMS"] } });
    expect(await refusal(service.create(sampleNewTask("T1", { ownerService: "MES" })))).toBe("UNKNOWN_OWNER");
    expect(await store.get("T1")).toBeUndefined();
    expect((await service.create(sampleNewTask("T2"))).created).toBe(true);
    // Malformed input is still INVALID first.
    expect(await refusal(service.create(sampleNewTask("T3", { ownerService: "M E S" })))).toBe("INVALID");
  });

  it("topic-per-owner without owners refuses to start (CONFIG); one topic enforces owners only when given", async () => {
    const { clock, store } = make();
    expect(() => new TaskService({ store, clock, routing: { mode: "topic-per-owner", topicPattern: "{owner}_T" } })).toThrow(/owners/);
    expect(() => new TaskService({ store, clock, routing: { mode: "owner-header", topic: "T", owners: ["bad owner"] } })).toThrow(/not a valid owner/);
    const open = new TaskService({ store, clock, routing: { mode: "owner-header", topic: "TASK_EVENT_TOPIC" } });
    expect((await open.create(sampleNewTask("T1", { ownerService: "ANY" }))).created).toBe(true);
    const closed = new TaskService({ store, clock, routing: { mode: "owner-header", topic: "TASK_EVENT_TOPIC", owners: ["LMS", "WMS"] } });
    expect(await refusal(closed.create(sampleNewTask("T2", { ownerService: "MES" })))).toBe("UNKNOWN_OWNER");
    expect((await closed.create(sampleNewTask("T3", { ownerService: "WMS" }))).created).toBe(true);
  });
});

describe("TaskService.replay and TaskWatchdogJob", () => {
  let clock: ManualClock;
  let pipeline: InMemoryPipelineStore;
  let store: InMemoryTaskStore;
  let service: TaskService;
  let ids: number;
  const rows = () => pipeline.tables.events;
  const payload = (i: number) => rows()[i]!.payload as TaskEventMessage;

  beforeEach(async () => {
    clock = new ManualClock();
    pipeline = new InMemoryPipelineStore(clock);
    store = new InMemoryTaskStore(clock, pipeline);
    ids = 0;
    service = new TaskService({ store, clock, ids: () => `R${++ids}` });
  });

  /** A task whose owner event went dead: FINISHED (or CANCELLED) and a FAILURE callback. */
  const dead = async (id: string, extra: Parameters<typeof sampleNewTask>[1] = {}, how: "FINISHED" | "CANCELLED" = "FINISHED") => {
    await service.create(sampleNewTask(id, extra));
    const fb = await service.feedback({ taskId: id, externalEventId: `E-${id}`, status: how, reason: how === "CANCELLED" ? "人工取消" : "done" });
    await service.callback({ taskId: id, eventId: fb.task.lastEventId!, result: "FAILURE", message: "attempts exhausted (5); last: boom" });
    return fb.task.lastEventId!;
  };

  it("preflight lists dead events by id with refusals for the others; a dry run changes nothing", async () => {
    await dead("T1");
    await service.create(sampleNewTask("T2"));
    const before = rows().length;
    const r = await service.replay({ taskIds: ["T1", "T2", "T9"] }, { by: "ops", reason: "handler fixed", dryRun: true });
    expect([r.replayId, r.dryRun, r.replayed]).toEqual([null, true, []]);
    expect(r.candidates.map((c) => [c.taskId, c.eligible, c.refusal ?? null])).toEqual([
      ["T1", true, null],
      ["T2", false, "status CREATED is not waiting for a callback"],
      ["T9", false, "no such task"],
    ]);
    expect(r.candidates[0]).toMatchObject({ status: TaskStatus.FINISHED_PENDING_CALLBACK, eventId: "T1#2", callbackError: "attempts exhausted (5); last: boom" });
    expect(rows().length).toBe(before);
    expect((await store.get("T1"))!.callbackError).not.toBeNull();
    expect(store.tables.replays).toEqual([]);
  });

  it("replay republishes the same event (same eventId, new outbox row, msgx-replay header), clears callbackError and audits", async () => {
    const eventId = await dead("T1", {}, "CANCELLED");
    const first = payload(0);
    clock.advance(5 * MIN);
    const r = await service.replay({ taskIds: ["T1"] }, { by: "ops@example", reason: "handler fixed 修复" });
    expect([r.replayId, r.replayed]).toEqual(["R1", ["T1"]]);
    expect(rows()).toHaveLength(2);
    const again = rows()[1]!;
    expect(again.payload).toEqual(first);
    expect([again.partitionKey, again.stateVersion, again.target]).toEqual(["T1", 2, "KAFKA:task"]);
    expect(again.headers).toEqual({ "msgx-owner": "LMS", "msgx-task-event": "TASK_CANCELLED", "msgx-handler-code": "LMS_STOCK_AREA_CALL_TUBE", "msgx-replay": "R1" });
    expect(again.eventId).not.toBe(rows()[0]!.eventId);
    const t = (await store.get("T1"))!;
    expect([t.status, t.callbackError, t.lastEventId]).toEqual([TaskStatus.CANCEL_PENDING_CALLBACK, null, eventId]);
    expect(await store.replay("R1")).toEqual({ replayId: "R1", by: "ops@example", reason: "handler fixed 修复", filter: { taskIds: ["T1"] }, taskIds: ["T1"], at: clock.now() });
    // The owner handles it this time and reports SUCCESS for the same event id.
    expect((await service.callback({ taskId: "T1", eventId, result: "SUCCESS" })).task.status).toBe(TaskStatus.CANCELLED);
    // Replaying again finds nothing: no event, no audit row.
    const none = await service.replay({ taskIds: ["T1"] }, { by: "ops", reason: "again" });
    expect([none.replayId, none.replayed, rows().length, store.tables.replays.length]).toEqual([null, [], 2, 1]);
  });

  it("by owner and by handler code (combined: all must hold); a pending task the owner never failed is not replayed", async () => {
    await dead("A", { ownerService: "LMS", handlerCode: "H1" });
    await dead("B", { ownerService: "LMS", handlerCode: "H2" });
    await dead("C", { ownerService: "WMS", handlerCode: "H1" });
    await service.create(sampleNewTask("D", { handlerCode: "H1" }));
    await service.feedback({ taskId: "D", externalEventId: "E", status: "FINISHED" });
    const byOwner = await service.replay({ owner: "LMS" }, { by: "ops", reason: "r", dryRun: true });
    expect(byOwner.candidates.map((c) => c.taskId)).toEqual(["A", "B"]);
    const byCode = await service.replay({ handlerCode: "H1" }, { by: "ops", reason: "r" });
    expect(byCode.replayed).toEqual(["A", "C"]);
    const both = await service.replay({ owner: "LMS", handlerCode: "H2", taskIds: ["B", "C"] }, { by: "ops", reason: "r" });
    expect(both.replayed).toEqual(["B"]);
    expect(both.candidates.find((c) => c.taskId === "C")?.refusal).toMatch(/status|does not match/);
    const d = await service.replay({ taskIds: ["D"] }, { by: "ops", reason: "r", dryRun: true });
    expect(d.candidates[0]?.refusal).toBe("the owner did not report FAILURE (the event is not dead)");
  });

  it("refuses a replay without a filter, without who or why", async () => {
    expect(await refusal(service.replay({}, { by: "ops", reason: "r" }))).toBe("INVALID");
    expect(await refusal(service.replay({ taskIds: [] }, { by: "ops", reason: "r" }))).toBe("INVALID");
    expect(await refusal(service.replay({ owner: "LMS" }, { by: "", reason: "r" }))).toBe("INVALID");
    expect(await refusal(service.replay({ owner: "LMS" }, { by: "ops", reason: " " }))).toBe("INVALID");
    expect(await refusal(service.replay({ taskIds: ["bad id"] }, { by: "ops", reason: "r" }))).toBe("INVALID");
  });

  it("watchdog: alerts on tasks pending longer than alertMs, redelivers the event (msgx-redeliver) unless the owner reported FAILURE, at most every retryMs", async () => {
    const logs: { msg: string; fields: Record<string, unknown> }[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (msg: string, fields?: Record<string, unknown>) => void logs.push({ msg, fields: fields ?? {} }) };
    const watchdog = new TaskWatchdogJob({ store, clock, logger }, { pendingCallbackAlertMs: 10 * MIN, pendingCallbackRetryMs: 15 * MIN });
    await service.create(sampleNewTask("LOST"));
    await service.feedback({ taskId: "LOST", externalEventId: "E1", status: "FINISHED" });
    await dead("DEAD");
    await service.create(sampleNewTask("RUNNING"));
    const first = payload(0);
    clock.advance(10 * MIN - 1);
    expect(await watchdog.step()).toEqual({ alerted: 0, redelivered: 0, more: false });
    clock.advance(1);
    expect(await watchdog.step()).toEqual({ alerted: 2, redelivered: 1, more: false });
    expect(watchdog.alerts).toBe(2);
    expect(rows()).toHaveLength(3);
    expect(rows()[2]!.payload).toEqual(first);
    expect(rows()[2]!.headers).toMatchObject({ "msgx-redeliver": "watchdog", "msgx-task-event": "TASK_FINISHED" });
    // Oldest change first, then by id.
    expect(logs.map((l) => [l.msg.includes("sent again") ? "redelivered" : "replay it", l.fields["taskId"]])).toEqual([
      ["replay it", "DEAD"],
      ["redelivered", "LOST"],
    ]);
    const lost = (await store.get("LOST"))!;
    expect([lost.status, lost.callbackAlerts, lost.callbackAlertAt]).toEqual([TaskStatus.FINISHED_PENDING_CALLBACK, 1, clock.now()]);
    // Not again before retryMs (15 min) has passed since the alert.
    clock.advance(15 * MIN - 1);
    expect((await watchdog.step()).alerted).toBe(0);
    clock.advance(1);
    expect(await watchdog.step()).toEqual({ alerted: 2, redelivered: 1, more: false });
    // The owner reports: no more alerts.
    await service.callback({ taskId: "LOST", eventId: lost.lastEventId!, result: "SUCCESS" });
    clock.advance(60 * MIN);
    expect((await watchdog.step()).alerted).toBe(1);
    expect(watchdog.alerts).toBe(5);
  });

  it("watchdog: bounded per step, oldest first; more is set for a full batch", async () => {
    const watchdog = new TaskWatchdogJob({ store, clock }, { batchSize: 2 });
    for (const id of ["T3", "T1", "T2"]) {
      await service.create(sampleNewTask(id));
      await service.feedback({ taskId: id, externalEventId: "E", status: "FINISHED" });
      clock.advance(1_000);
    }
    clock.advance(10 * MIN);
    expect(await watchdog.step()).toEqual({ alerted: 2, redelivered: 2, more: true });
    expect(rows().slice(3).map((e) => e.partitionKey)).toEqual(["T3", "T1"]);
    expect(await watchdog.step()).toEqual({ alerted: 1, redelivered: 1, more: false });
    expect(() => new TaskWatchdogJob({ store, clock }, { pendingCallbackAlertMs: 0 })).toThrow(RangeError);
  });
});
