import { beforeEach, describe, expect, it } from "vitest";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";
import { DispatchJob, dispatchBackoffMs } from "../src/dispatch-job.js";
import { InMemoryTaskDispatcher } from "../src/in-memory-task-dispatcher.js";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { TaskStatus } from "../src/task-record.js";
import { TaskService } from "../src/task-service.js";
import { sampleNewTask } from "../src/task-store-contract-fixtures.js";

describe("DispatchJob", () => {
  let clock: ManualClock;
  let pipeline: InMemoryPipelineStore;
  let store: InMemoryTaskStore;
  let dispatcher: InMemoryTaskDispatcher;
  let service: TaskService;
  let job: DispatchJob;
  beforeEach(() => {
    clock = new ManualClock();
    pipeline = new InMemoryPipelineStore(clock);
    store = new InMemoryTaskStore(clock, pipeline);
    dispatcher = new InMemoryTaskDispatcher();
    service = new TaskService({ store, clock, dispatcher });
    job = new DispatchJob({ store, dispatcher, clock }, { batchSize: 10 });
  });

  it("a created task is due at once; accepted -> DISPATCHED with the external number, one attempt, nothing more due", async () => {
    const { task } = await service.create(sampleNewTask("T1"));
    expect([task.status, task.nextDispatchAt]).toEqual([TaskStatus.CREATED, clock.now()]);
    const step = await job.step();
    expect(step).toMatchObject({ examined: 1, dispatched: 1, outage: false, more: false });
    const after = (await store.get("T1"))!;
    expect([after.status, after.externalTaskNo, after.dispatchAttempts, after.nextDispatchAt, after.version]).toEqual([TaskStatus.DISPATCHED, "EXT-1", 1, null, 2]);
    expect((await job.step()).examined).toBe(0);
    expect(dispatcher.dispatches).toEqual(["T1"]);
    expect(job.totals.dispatched).toBe(1);
  });

  it("dispatch: false (or no dispatcher) keeps the task out of the job: dispatched by markDispatched", async () => {
    await service.create({ ...sampleNewTask("T2"), dispatch: false });
    const manual = new TaskService({ store, clock });
    await manual.create(sampleNewTask("T3"));
    expect((await job.step()).examined).toBe(0);
    expect(((await store.get("T2"))!).nextDispatchAt).toBeNull();
    expect((await service.markDispatched("T2", "ACS-2")).status).toBe(TaskStatus.DISPATCHED);
    // A repeated create with dispatch flipped is the same task.
    expect((await service.create(sampleNewTask("T2"))).created).toBe(false);
  });

  it("an outage spends nothing: the batch stops, the task stays due with 0 attempts; back up, it is dispatched", async () => {
    await service.create(sampleNewTask("T1"));
    await service.create(sampleNewTask("T2"));
    dispatcher.down = true;
    const step = await job.step();
    expect(step).toMatchObject({ examined: 1, dispatched: 0, failed: 0, outage: true, more: false });
    for (const id of ["T1", "T2"]) expect(((await store.get(id))!).dispatchAttempts).toBe(0);
    expect(((await store.get("T1"))!).version).toBe(1);
    dispatcher.down = false;
    expect(await job.step()).toMatchObject({ examined: 2, dispatched: 2, outage: false });
    expect(job.totals).toEqual({ dispatched: 2, refused: 0, failed: 0, outages: 1 });
  });

  it("a lost answer (accepted, then the connection dropped) is repeated with the same idempotency key: one external task", async () => {
    await service.create(sampleNewTask("T1"));
    dispatcher.script("lose-answer");
    expect((await job.step()).outage).toBe(true);
    expect(((await store.get("T1"))!).status).toBe(TaskStatus.CREATED);
    await job.step();
    const t = (await store.get("T1"))!;
    expect([t.status, t.externalTaskNo, t.dispatchAttempts]).toEqual([TaskStatus.DISPATCHED, "EXT-1", 1]);
    expect(dispatcher.tasks.size).toBe(1);
  });

  it("a refusal is FAILED with the reason (terminal, no owner event); feedback on it is REJECTED", async () => {
    await service.create(sampleNewTask("T1"));
    dispatcher.script("refuse", "unknown externalTaskType 3");
    expect(await job.step()).toMatchObject({ refused: 1 });
    const t = (await store.get("T1"))!;
    expect([t.status, t.statusReason, t.dispatchError, t.dispatchAttempts, t.nextDispatchAt]).toEqual([TaskStatus.FAILED, "unknown externalTaskType 3", "unknown externalTaskType 3", 1, null]);
    expect(pipeline.tables.events).toEqual([]);
    expect((await service.feedback({ taskId: "T1", externalEventId: "E", status: "FINISHED" })).entry.outcome).toBe("REJECTED");
    clock.advance(3_600_000);
    expect((await job.step()).examined).toBe(0);
  });

  it("a transient failure spends an attempt and backs off 1 s doubling to 60 s, without limit", async () => {
    await service.create(sampleNewTask("T1"));
    const t0 = clock.now();
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      dispatcher.script("fail", `ACS 503 #${i}`);
      const before = clock.now();
      expect(await job.step()).toMatchObject({ failed: 1 });
      const t = (await store.get("T1"))!;
      expect([t.status, t.dispatchAttempts, t.dispatchError]).toEqual([TaskStatus.CREATED, i + 1, `ACS 503 #${i}`]);
      waits.push(t.nextDispatchAt! - before);
      // Not due a millisecond early.
      clock.advance(t.nextDispatchAt! - clock.now() - 1);
      expect((await job.step()).examined).toBe(0);
      clock.advance(1);
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(await job.step()).toMatchObject({ dispatched: 1 });
    expect(((await store.get("T1"))!).dispatchAttempts).toBe(10);
    expect(clock.now()).toBeGreaterThan(t0);
    expect(dispatchBackoffMs(1, { initialBackoffMs: 500, maxBackoffMs: 1_500 })).toBe(500);
    expect(dispatchBackoffMs(3, { initialBackoffMs: 500, maxBackoffMs: 1_500 })).toBe(1_500);
    expect(() => new DispatchJob({ store, dispatcher, clock }, { retry: { initialBackoffMs: 0 } })).toThrow(RangeError);
  });

  it("due order: earliest first, at most batchSize per step; more is set for a full batch", async () => {
    const small = new DispatchJob({ store, dispatcher, clock }, { batchSize: 2 });
    for (const id of ["T3", "T1", "T2"]) {
      await service.create(sampleNewTask(id));
      clock.advance(10);
    }
    expect(await small.step()).toMatchObject({ examined: 2, dispatched: 2, more: true });
    expect(dispatcher.dispatches).toEqual(["T3", "T1"]);
    expect(await small.step()).toMatchObject({ examined: 1, more: false });
  });

  it("race with cancel: a task cancelled while its dispatch ran is not dispatched; the external system is told to cancel it", async () => {
    await service.create(sampleNewTask("T1"));
    const original = dispatcher.dispatch.bind(dispatcher);
    dispatcher.dispatch = async (task, signal) => {
      const answer = await original(task, signal);
      // The user cancels while the call is on the wire.
      await service.cancel("T1", { reason: "人工取消", requestId: "C-1" });
      return answer;
    };
    expect(await job.step()).toMatchObject({ examined: 1, dispatched: 0, skipped: 1, raceCancels: 1 });
    const t = (await store.get("T1"))!;
    expect([t.status, t.externalTaskNo]).toEqual([TaskStatus.CANCEL_PENDING_CALLBACK, null]);
    // The user's cancel asks the external system (the task was waiting for dispatch), and the job
    // asks again for the dispatch it saw accepted: cancel is idempotent there.
    expect(dispatcher.cancels.map((c) => c.taskId)).toEqual(["T1", "T1"]);
    expect(dispatcher.cancels[0]!.reason).toBe("人工取消");
    expect(dispatcher.tasks.get("T1")?.status).toBe("CANCELLED");
    expect(pipeline.tables.events.map((e) => (e.payload as { eventType: string }).eventType)).toEqual(["TASK_CANCELLED"]);
  });

  it("a task reported on by the external system before the answer was recorded is left as the report made it", async () => {
    await service.create(sampleNewTask("T1"));
    const original = dispatcher.dispatch.bind(dispatcher);
    dispatcher.dispatch = async (task, signal) => {
      const answer = await original(task, signal);
      await service.feedback({ taskId: "T1", externalEventId: "E1", status: "EXECUTING", externalTaskNo: "EXT-1" });
      return answer;
    };
    expect(await job.step()).toMatchObject({ skipped: 1, raceCancels: 0 });
    expect(((await store.get("T1"))!).status).toBe(TaskStatus.EXECUTING);
    expect(dispatcher.cancels).toEqual([]);
  });

  it("a store fault while recording leaves the task due: the repeat gets the same external number", async () => {
    await service.create(sampleNewTask("T1"));
    pipeline.faults.failNext("task.commit");
    await expect(job.step()).rejects.toThrow();
    expect(((await store.get("T1"))!).status).toBe(TaskStatus.CREATED);
    await job.step();
    expect(((await store.get("T1"))!).externalTaskNo).toBe("EXT-1");
    expect(dispatcher.dispatches).toEqual(["T1", "T1"]);
  });
});
