import { beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";
import { DispatchJob } from "../src/dispatch-job.js";
import { InMemoryTaskDispatcher } from "../src/in-memory-task-dispatcher.js";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { TaskStatus } from "../src/task-record.js";
import { isTaskRequestError } from "../src/task-request-error.js";
import { TaskService } from "../src/task-service.js";
import { sampleNewTask } from "../src/task-store-contract-fixtures.js";

const refusal = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "accepted",
    (e: unknown) => (isTaskRequestError(e) ? e.code : isMsgxError(e) ? e.kind : String(e)),
  );

describe("TaskService.cancel (seed 001 §10)", () => {
  let clock: ManualClock;
  let pipeline: InMemoryPipelineStore;
  let store: InMemoryTaskStore;
  let dispatcher: InMemoryTaskDispatcher;
  let service: TaskService;
  let job: DispatchJob;
  const eventTypes = () => pipeline.tables.events.map((e) => (e.payload as { eventType: string }).eventType);
  beforeEach(async () => {
    clock = new ManualClock();
    pipeline = new InMemoryPipelineStore(clock);
    store = new InMemoryTaskStore(clock, pipeline);
    dispatcher = new InMemoryTaskDispatcher();
    service = new TaskService({ store, clock, dispatcher });
    job = new DispatchJob({ store, dispatcher, clock });
    await service.create(sampleNewTask("T1"));
  });

  it("CREATED, waiting for the dispatch job: the external system is asked too (it never accepted it: cancelled), then CANCEL_PENDING_CALLBACK with TASK_CANCELLED; the job skips it", async () => {
    const answer = await service.cancel("T1", { reason: "人工取消", requestId: "C-1" });
    expect([answer.outcome, answer.task.status, answer.task.statusReason, answer.task.lastEventId, answer.task.nextDispatchAt]).toEqual([
      "cancelled",
      TaskStatus.CANCEL_PENDING_CALLBACK,
      "人工取消",
      "T1#2",
      null,
    ]);
    expect(dispatcher.cancels).toEqual([{ taskId: "T1", reason: "人工取消" }]);
    expect(dispatcher.tasks.size).toBe(0);
    expect(eventTypes()).toEqual(["TASK_CANCELLED"]);
    expect(pipeline.tables.events[0]!.payload).toMatchObject({ eventId: "T1#2", externalEventId: "C-1", reason: "人工取消" });
    expect(await store.feedback("T1")).toMatchObject([{ externalEventId: "C-1", status: "CANCELLED", outcome: "APPLIED", eventId: "T1#2" }]);
    expect((await job.step()).examined).toBe(0);
    expect(dispatcher.dispatches).toEqual([]);
  });

  it("DISPATCHED / EXECUTING: cancelled in the external system first, then recorded like a CANCELLED feedback", async () => {
    await job.step();
    const answer = await service.cancel("T1", { reason: "line stopped" });
    expect([answer.outcome, answer.task.status, answer.task.externalTaskNo]).toEqual(["cancelled", TaskStatus.CANCEL_PENDING_CALLBACK, "EXT-1"]);
    expect(dispatcher.cancels).toEqual([{ taskId: "T1", reason: "line stopped" }]);
    expect(dispatcher.tasks.get("T1")?.status).toBe("CANCELLED");
    expect(eventTypes()).toEqual(["TASK_CANCELLED"]);
    expect((await store.feedback("T1")).map((f) => f.externalEventId)).toEqual(["cancel"]);

    await service.create(sampleNewTask("T2"));
    await job.step();
    await service.feedback({ taskId: "T2", externalEventId: "E1", status: "EXECUTING" });
    expect((await service.cancel("T2", { reason: "x", requestId: "C-2" })).task.status).toBe(TaskStatus.CANCEL_PENDING_CALLBACK);
    expect(eventTypes()).toEqual(["TASK_CANCELLED", "TASK_EXECUTING", "TASK_CANCELLED"]);
  });

  it("idempotent: a repeat (any request id) on CANCEL_PENDING_CALLBACK or CANCELLED is a no-op answered `already`", async () => {
    await job.step();
    await service.cancel("T1", { reason: "r", requestId: "C-1" });
    const again = await service.cancel("T1", { reason: "r", requestId: "C-1" });
    const other = await service.cancel("T1", { reason: "other", requestId: "C-2" });
    expect([again.outcome, other.outcome, other.task.version]).toEqual(["already", "already", again.task.version]);
    expect(dispatcher.cancels).toHaveLength(1);
    await service.callback({ taskId: "T1", eventId: again.task.lastEventId!, result: "SUCCESS" });
    expect((await service.cancel("T1", { reason: "r" })).outcome).toBe("already");
    expect(eventTypes()).toEqual(["TASK_CANCELLED"]);
  });

  it("too late: the external system finished it -> TOO_LATE, nothing changes, the task finishes normally", async () => {
    await job.step();
    dispatcher.finish("T1");
    expect(await refusal(service.cancel("T1", { reason: "r" }))).toBe("TOO_LATE");
    expect((await store.get("T1"))!.status).toBe(TaskStatus.DISPATCHED);
    const fin = await service.feedback({ taskId: "T1", externalEventId: "E-fin", status: "FINISHED" });
    expect(fin.task.status).toBe(TaskStatus.FINISHED_PENDING_CALLBACK);
    expect(eventTypes()).toEqual(["TASK_FINISHED"]);
  });

  it("the external system cannot cancel now -> CANCEL_FAILED, nothing changes; asked again it works", async () => {
    await job.step();
    dispatcher.script("fail", "vehicle busy");
    expect(await refusal(service.cancel("T1", { reason: "r" }))).toBe("CANCEL_FAILED");
    expect((await store.get("T1"))!.status).toBe(TaskStatus.DISPATCHED);
    expect(pipeline.tables.events).toEqual([]);
    expect((await service.cancel("T1", { reason: "r" })).outcome).toBe("cancelled");
  });

  it("an unreachable external system -> DEPENDENCY_UNAVAILABLE, nothing changes", async () => {
    await job.step();
    dispatcher.down = true;
    expect(await refusal(service.cancel("T1", { reason: "r" }))).toBe("DEPENDENCY_UNAVAILABLE");
    expect((await store.get("T1"))!.status).toBe(TaskStatus.DISPATCHED);
  });

  it("FINISHED_PENDING_CALLBACK / FINISHED / FAILED -> ILLEGAL_STATE; unknown task NOT_FOUND; bad input INVALID", async () => {
    await service.feedback({ taskId: "T1", externalEventId: "E", status: "FINISHED" });
    expect(await refusal(service.cancel("T1", { reason: "r" }))).toBe("ILLEGAL_STATE");
    await service.callback({ taskId: "T1", eventId: "T1#2", result: "SUCCESS" });
    expect(await refusal(service.cancel("T1", { reason: "r" }))).toBe("ILLEGAL_STATE");
    await service.create(sampleNewTask("T2"));
    dispatcher.script("refuse", "bad type");
    await job.step();
    expect((await store.get("T2"))!.status).toBe(TaskStatus.FAILED);
    expect(await refusal(service.cancel("T2", { reason: "r" }))).toBe("ILLEGAL_STATE");
    expect(await refusal(service.cancel("T9", { reason: "r" }))).toBe("NOT_FOUND");
    expect(await refusal(service.cancel("T1", { reason: "" }))).toBe("INVALID");
    expect(await refusal(service.cancel("T1", { reason: "r", requestId: "" }))).toBe("INVALID");
    expect(dispatcher.cancels).toEqual([]);
  });

  it("a dispatch accepted with its answer lost, then a cancel: the external system cancels the task it holds (it does not run on)", async () => {
    dispatcher.script("lose-answer");
    expect((await job.step()).outage).toBe(true);
    expect((await store.get("T1"))?.status).toBe(TaskStatus.CREATED);
    expect(dispatcher.tasks.get("T1")?.status).toBe("ACCEPTED");
    const answer = await service.cancel("T1", { reason: "no longer needed" });
    expect([answer.outcome, answer.task.status]).toEqual(["cancelled", TaskStatus.CANCEL_PENDING_CALLBACK]);
    expect(dispatcher.tasks.get("T1")?.status).toBe("CANCELLED");
    expect((await job.step()).examined).toBe(0);
  });

  it("a task created not to be dispatched by the job is cancelled without asking the external system", async () => {
    await service.create({ ...sampleNewTask("T4"), dispatch: false });
    const answer = await service.cancel("T4", { reason: "r" });
    expect(answer.task.status).toBe(TaskStatus.CANCEL_PENDING_CALLBACK);
    expect(dispatcher.cancels).toEqual([]);
  });

  it("a task dispatched between the look and the record is cancelled through the external system", async () => {
    // The dispatch job records an acceptance while the cancel is deciding (the store read it as CREATED).
    const get = store.get.bind(store);
    let raced = false;
    store.get = async (id) => {
      const t = await get(id);
      if (!raced && t?.status === TaskStatus.CREATED) {
        raced = true;
        await job.step();
      }
      return t;
    };
    const answer = await service.cancel("T1", { reason: "r" });
    expect([answer.outcome, answer.task.status]).toEqual(["cancelled", TaskStatus.CANCEL_PENDING_CALLBACK]);
    expect(dispatcher.cancels).toEqual([{ taskId: "T1", reason: "r" }]);
    expect(dispatcher.tasks.get("T1")?.status).toBe("CANCELLED");
  });

  it("without a dispatcher (tasks dispatched by their caller) a dispatched task's cancel is recorded at once", async () => {
    const manual = new TaskService({ store, clock });
    await manual.create({ ...sampleNewTask("T3"), dispatch: false });
    await manual.markDispatched("T3", "ACS-3");
    const answer = await manual.cancel("T3", { reason: "cancelled at ACS by the caller" });
    expect(answer.task.status).toBe(TaskStatus.CANCEL_PENDING_CALLBACK);
  });

  it("a late EXECUTING or FINISHED report after the cancel is IGNORED / REJECTED and publishes nothing more", async () => {
    await service.cancel("T1", { reason: "r" });
    expect((await service.feedback({ taskId: "T1", externalEventId: "E1", status: "EXECUTING" })).entry.outcome).toBe("IGNORED");
    expect((await service.feedback({ taskId: "T1", externalEventId: "E2", status: "FINISHED" })).entry.outcome).toBe("REJECTED");
    expect(eventTypes()).toEqual(["TASK_CANCELLED"]);
  });
});
