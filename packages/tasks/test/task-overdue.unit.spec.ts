import { beforeEach, describe, expect, it } from "vitest";
import { InMemoryPipelineStore, ManualClock } from "@msgx/core/fakes";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { parseTaskEvent, type TaskEventMessage } from "../src/task-event.js";
import { evolveTask } from "../src/task-machine.js";
import { assertTaskOverduePolicy, decideTaskOverdue, isTaskOverdue, resolveTaskTimeouts } from "../src/task-overdue.js";
import { TaskOverdueJob } from "../src/task-overdue-job.js";
import { TaskStatus } from "../src/task-record.js";
import { TaskService } from "../src/task-service.js";
import { numberedTask, sampleNewTask, T0 } from "../src/task-store-contract-fixtures.js";

const SEC = 1_000;

describe("the overdue policy and decision", () => {
  it("each timeout comes from the handler code, else the business type, else the default; none = not watched", () => {
    const policy = {
      default: { deadlineMs: 600 * SEC },
      byBizType: { STOCK_AREA_CALL_TUBE: { deadlineMs: 300 * SEC, heartbeatMs: 60 * SEC } },
      byHandlerCode: { FAST: { heartbeatMs: 5 * SEC } },
    };
    expect(resolveTaskTimeouts(policy, { handlerCode: "FAST", bizType: "STOCK_AREA_CALL_TUBE" })).toEqual({ deadlineMs: 300 * SEC, heartbeatMs: 5 * SEC });
    expect(resolveTaskTimeouts(policy, { handlerCode: "FAST", bizType: "OTHER" })).toEqual({ deadlineMs: 600 * SEC, heartbeatMs: 5 * SEC });
    expect(resolveTaskTimeouts(policy, { handlerCode: "X", bizType: "STOCK_AREA_CALL_TUBE" })).toEqual({ deadlineMs: 300 * SEC, heartbeatMs: 60 * SEC });
    expect(resolveTaskTimeouts({ byHandlerCode: { FAST: { heartbeatMs: 1 } } }, { handlerCode: "X", bizType: "constructor" })).toEqual({ deadlineMs: null, heartbeatMs: null });
    expect(resolveTaskTimeouts(undefined, { handlerCode: "X", bizType: "Y" })).toEqual({ deadlineMs: null, heartbeatMs: null });
    expect(() => assertTaskOverduePolicy({ byBizType: { B: { deadlineMs: 0 } } })).toThrow(/byBizType\.B\.deadlineMs/);
    expect(() => assertTaskOverduePolicy({ default: { heartbeatMs: 1.5 } })).toThrow(/default\.heartbeatMs/);
  });

  it("the deadline runs from the first dispatch (or report); each progress report re-arms the heartbeat; only DISPATCHED / EXECUTING tasks are overdue", () => {
    const created = { ...numberedTask(sampleNewTask("D1"), T0), deadlineMs: 100 * SEC, heartbeatMs: 30 * SEC };
    expect(decideTaskOverdue(created, T0 + 1_000 * SEC)).toEqual([]);
    const dispatched = evolveTask(created, { type: "dispatched", externalTaskNo: "ACS-1" }, T0 + 10 * SEC);
    expect([dispatched.deadlineAt, dispatched.lastProgressAt]).toEqual([T0 + 110 * SEC, T0 + 10 * SEC]);
    expect(decideTaskOverdue(dispatched, T0 + 40 * SEC - 1)).toEqual([]);
    expect(decideTaskOverdue(dispatched, T0 + 40 * SEC)).toEqual(["HEARTBEAT"]);
    const running = evolveTask(dispatched, { type: "executing" }, T0 + 35 * SEC);
    expect([running.deadlineAt, running.lastProgressAt]).toEqual([T0 + 110 * SEC, T0 + 35 * SEC]);
    expect(decideTaskOverdue(running, T0 + 40 * SEC)).toEqual([]);
    expect(decideTaskOverdue(running, T0 + 110 * SEC)).toEqual(["DEADLINE", "HEARTBEAT"]);
    const silent = evolveTask(running, { type: "overdue", reason: "HEARTBEAT" }, T0 + 65 * SEC);
    expect([silent.status, silent.version, silent.heartbeatOverdueAt]).toEqual([TaskStatus.EXECUTING, running.version + 1, T0 + 65 * SEC]);
    expect(isTaskOverdue(silent)).toBe(true);
    expect(decideTaskOverdue(silent, T0 + 110 * SEC)).toEqual(["DEADLINE"]);
    const late = evolveTask(silent, { type: "overdue", reason: "DEADLINE" }, T0 + 110 * SEC);
    expect(decideTaskOverdue(late, T0 + 1_000 * SEC)).toEqual([]);
    const again = evolveTask(late, { type: "executing" }, T0 + 120 * SEC);
    expect([again.heartbeatOverdueAt, again.deadlineOverdueAt]).toEqual([null, T0 + 110 * SEC]);
    expect(decideTaskOverdue(again, T0 + 150 * SEC)).toEqual(["HEARTBEAT"]);
    const finished = evolveTask(again, { type: "finished", eventId: "D1#6", reason: null }, T0 + 121 * SEC);
    expect(decideTaskOverdue(finished, T0 + 1_000 * SEC)).toEqual([]);
    expect(isTaskOverdue(finished)).toBe(false);
    expect(() => evolveTask(finished, { type: "overdue", reason: "DEADLINE" }, T0)).toThrow(/overdue is not legal from FINISHED_PENDING_CALLBACK/);
    // A report before the dispatch was recorded starts the deadline too.
    const reportedFirst = evolveTask(created, { type: "executing" }, T0 + 5 * SEC);
    expect(reportedFirst.deadlineAt).toBe(T0 + 105 * SEC);
  });
});

describe("TaskOverdueJob", () => {
  let clock: ManualClock;
  let pipeline: InMemoryPipelineStore;
  let store: InMemoryTaskStore;
  let service: TaskService;
  const events = () => pipeline.tables.events.map((e) => ({ message: e.payload as TaskEventMessage, headers: e.headers }));
  const overdueEvents = () => events().filter((e) => e.message.eventType === "TASK_OVERDUE").map((e) => e.message);

  beforeEach(() => {
    clock = new ManualClock(T0);
    pipeline = new InMemoryPipelineStore(clock);
    store = new InMemoryTaskStore(clock, pipeline);
    service = new TaskService({
      store,
      clock,
      overduePolicy: { byHandlerCode: { SLOW: { deadlineMs: 60 * SEC } }, default: { heartbeatMs: 20 * SEC } },
    });
  });

  it("one TASK_OVERDUE per cause to the owner, status unchanged; progress re-arms the heartbeat; the deadline is reported once", async () => {
    const warnings: Record<string, unknown>[] = [];
    const logger = { debug() {}, info() {}, warn: (_m: string, f?: Record<string, unknown>) => void warnings.push(f ?? {}), error() {} };
    const job = new TaskOverdueJob({ store, clock, logger });
    await service.create(sampleNewTask("HB"));
    await service.create(sampleNewTask("DL", { handlerCode: "SLOW" }));
    await service.markDispatched("HB", "ACS-HB");
    await service.markDispatched("DL", "ACS-DL");
    await service.feedback({ taskId: "HB", externalEventId: "p1", status: "EXECUTING", progress: "10%" });
    clock.advance(20 * SEC - 1);
    expect(await job.step()).toEqual({ overdue: { DEADLINE: 0, HEARTBEAT: 0 }, more: false });
    clock.advance(1);
    // Both silent for 20 s (the default heartbeat); a second step finds nothing more.
    expect(await job.step()).toEqual({ overdue: { DEADLINE: 0, HEARTBEAT: 2 }, more: false });
    expect(await job.step()).toEqual({ overdue: { DEADLINE: 0, HEARTBEAT: 0 }, more: false });
    const heartbeat = overdueEvents().find((e) => e.taskId === "HB")!;
    expect(heartbeat).toMatchObject({
      eventId: "HB#4",
      taskVersion: 4,
      overdueReason: "HEARTBEAT",
      deadlineAt: null,
      lastProgressAt: new Date(T0).toISOString(),
      externalEventId: "overdue:HEARTBEAT",
      reason: "no progress from ACS for 20000 ms (heartbeat timeout 20000 ms)",
    });
    expect(parseTaskEvent(JSON.stringify(heartbeat)).ok).toBe(true);
    expect(schemaErrors("task-event", heartbeat)).toEqual([]);
    expect(events().at(-1)!.headers).toMatchObject({ "msgx-task-event": "TASK_OVERDUE", "msgx-owner": "LMS", "msgx-handler-code": "LMS_STOCK_AREA_CALL_TUBE" });
    expect((await store.get("HB"))!.status).toBe(TaskStatus.EXECUTING);
    expect((await store.get("DL"))!.status).toBe(TaskStatus.DISPATCHED);
    expect(warnings.map((w) => [w["taskId"], w["reason"]])).toEqual([
      ["DL", "HEARTBEAT"],
      ["HB", "HEARTBEAT"],
    ]);

    // Progress re-arms HB's heartbeat: its next silence is reported again; DL stays marked.
    await service.feedback({ taskId: "HB", externalEventId: "p2", status: "EXECUTING" });
    clock.advance(20 * SEC);
    expect((await job.step()).overdue).toEqual({ DEADLINE: 0, HEARTBEAT: 1 });
    // DL's deadline (60 s from dispatch, SLOW's) runs out: once.
    clock.advance(20 * SEC);
    expect((await job.step()).overdue).toEqual({ DEADLINE: 1, HEARTBEAT: 0 });
    clock.advance(600 * SEC);
    expect((await job.step()).overdue).toEqual({ DEADLINE: 0, HEARTBEAT: 0 });
    expect(overdueEvents().map((e) => [e.taskId, e.overdueReason])).toEqual([
      ["DL", "HEARTBEAT"],
      ["HB", "HEARTBEAT"],
      ["HB", "HEARTBEAT"],
      ["DL", "DEADLINE"],
    ]);
    const deadline = overdueEvents().at(-1)!;
    expect(schemaErrors("task-event", deadline)).toEqual([]);
    expect([deadline.deadlineAt, deadline.reason]).toEqual([new Date(T0 + 60 * SEC).toISOString(), "not finished within its deadline of 60000 ms from dispatch (0 ms past it)"]);
    expect((await store.list({ overdue: true })).map((t) => t.taskId)).toEqual(["DL", "HB"]);
    // Finished: never again, and no longer listed as overdue.
    await service.feedback({ taskId: "DL", externalEventId: "f", status: "FINISHED" });
    await service.feedback({ taskId: "HB", externalEventId: "f", status: "FINISHED" });
    clock.advance(600 * SEC);
    expect((await job.step()).overdue).toEqual({ DEADLINE: 0, HEARTBEAT: 0 });
    expect(await store.list({ overdue: true })).toEqual([]);
  });

  it("two runners' jobs over one store: each cause published once; a task finished meanwhile is left alone; bounded per step", async () => {
    const a = new TaskOverdueJob({ store, clock }, { batchSize: 2 });
    const b = new TaskOverdueJob({ store, clock }, { batchSize: 2 });
    for (const id of ["T3", "T1", "T2"]) {
      await service.create(sampleNewTask(id));
      await service.markDispatched(id, `ACS-${id}`);
    }
    clock.advance(20 * SEC);
    // Both read the same two candidates (T1, T2) before either writes; each decides again under
    // the task's lock, so each cause is published once between them.
    const [ra, rb] = await Promise.all([a.step(), b.step()]);
    expect(ra.overdue.HEARTBEAT + rb.overdue.HEARTBEAT).toBe(2);
    expect([ra.more, rb.more]).toEqual([true, true]);
    expect(overdueEvents().map((e) => e.taskId).sort()).toEqual(["T1", "T2"]);
    // T3 finishes before anyone gets to it: left alone.
    await service.feedback({ taskId: "T3", externalEventId: "f", status: "FINISHED" });
    expect(await b.step()).toEqual({ overdue: { DEADLINE: 0, HEARTBEAT: 0 }, more: false });
    expect(overdueEvents().map((e) => e.taskId).sort()).toEqual(["T1", "T2"]);
    expect((await store.list({ overdue: true })).map((t) => t.taskId)).toEqual(["T1", "T2"]);
  });

  it("unwatched tasks (no policy) are never overdue", async () => {
    const plain = new TaskService({ store, clock });
    await plain.create(sampleNewTask("U"));
    await plain.markDispatched("U", "ACS-U");
    clock.advance(365 * 24 * 3_600 * SEC);
    expect((await new TaskOverdueJob({ store, clock }).step()).overdue).toEqual({ DEADLINE: 0, HEARTBEAT: 0 });
  });
});
