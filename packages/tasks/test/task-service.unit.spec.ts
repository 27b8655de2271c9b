import { beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { sampleNewTask } from "../src/task-store-contract-fixtures.js";
import { isTaskRequestError } from "../src/task-request-error.js";
import { TaskStatus } from "../src/task-record.js";
import { TaskService } from "../src/task-service.js";
import { formatTaskNo, TASK_NO_PATTERN, taskNoDay } from "../src/task-no.js";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";

const refusal = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "accepted",
    (e: unknown) => (isTaskRequestError(e) ? e.code : isMsgxError(e) ? e.kind : String(e)),
  );

describe("TaskService", () => {
  let clock: ManualClock;
  let pipeline: InMemoryPipelineStore;
  let store: InMemoryTaskStore;
  let service: TaskService;
  beforeEach(async () => {
    clock = new ManualClock();
    pipeline = new InMemoryPipelineStore(clock);
    store = new InMemoryTaskStore(clock, pipeline);
    service = new TaskService({ store, clock });
    await service.create(sampleNewTask("T1"));
  });

  it("refuses malformed requests as INVALID and a reused id as CONFLICT", async () => {
    expect(await refusal(service.create(sampleNewTask("bad id")))).toBe("INVALID");
    expect(await refusal(service.create(sampleNewTask("T2", { ownerService: "L M S" })))).toBe("INVALID");
    expect(await refusal(service.create(sampleNewTask("T2", { bizId: "" })))).toBe("INVALID");
    expect(await refusal(service.create({ ...sampleNewTask("T2"), payload: [] as unknown as Record<string, unknown> }))).toBe("INVALID");
    expect(await refusal(service.create(sampleNewTask("T1", { handlerCode: "LMS_SLITTER_DOWN_AGV" })))).toBe("CONFLICT");
    expect(await refusal(service.feedback({ taskId: "T1", externalEventId: "", status: "FINISHED" }))).toBe("INVALID");
    expect(await refusal(service.feedback({ taskId: "T1", externalEventId: "E", status: "DONE" as "FINISHED" }))).toBe("INVALID");
    expect(await refusal(service.feedback({ taskId: "T9", externalEventId: "E", status: "FINISHED" }))).toBe("NOT_FOUND");
    expect(await refusal(service.callback({ taskId: "T1", eventId: "T1#2", result: "OK" as "SUCCESS" }))).toBe("INVALID");
    expect(await refusal(service.callback({ taskId: "T9", eventId: "T9#2", result: "SUCCESS" }))).toBe("NOT_FOUND");
  });

  it("a repeated create with the same fields (any key order) returns the stored task", async () => {
    const again = await service.create({ ...sampleNewTask("T1"), payload: Object.fromEntries(Object.entries(sampleNewTask("T1").payload ?? {}).reverse()) });
    expect(again.created).toBe(false);
  });

  it("the seed's places (start, end, vehicle) are checked, stored, part of the request's identity and in the task's events", async () => {
    expect(await refusal(service.create(sampleNewTask("T2", { startPointCode: "" })))).toBe("INVALID");
    expect(await refusal(service.create(sampleNewTask("T2", { endPointCode: "x".repeat(129) })))).toBe("INVALID");
    expect(await refusal(service.create(sampleNewTask("T2", { vehicleCode: 7 as unknown as string })))).toBe("INVALID");
    expect(await refusal(service.create(sampleNewTask("T1", { vehicleCode: "another" })))).toBe("CONFLICT");
    const { task } = await service.create(sampleNewTask("T3", { startPointCode: "A-01", endPointCode: "B-02", vehicleCode: null }));
    expect([task.startPointCode, task.endPointCode, task.vehicleCode, task.taskNo]).toEqual(["A-01", "B-02", null, "T202603050002"]);
    await service.feedback({ taskId: "T3", externalEventId: "E1", status: "FINISHED" });
    const event = pipeline.tables.events.at(-1)!.payload as Record<string, unknown>;
    expect([event["taskNo"], event["startPointCode"], event["endPointCode"], event["vehicleCode"]]).toEqual(["T202603050002", "A-01", "B-02", null]);
  });

  it("task numbers: T + the day + 4 digits, wider past 9999; a malformed number is INVALID on lookup", async () => {
    expect([formatTaskNo("20260713", 1), formatTaskNo("20260713", 9_999), formatTaskNo("20260713", 10_000)]).toEqual(["T202607130001", "T202607139999", "T2026071310000"]);
    expect(TASK_NO_PATTERN.test("T2026071310000")).toBe(true);
    expect(taskNoDay(Date.UTC(2026, 6, 12, 16, 0), "Asia/Shanghai")).toBe("20260713");
    expect(taskNoDay(Date.UTC(2026, 6, 12, 15, 59, 59, 999), "Asia/Shanghai")).toBe("20260712");
    expect(() => new TaskService({ store, clock, taskNoTimeZone: "Mars/Olympus" })).toThrow(/not a time zone/);
    expect(await refusal(service.getByTaskNo("T2026"))).toBe("INVALID");
    expect(await service.getByTaskNo("T202603059999")).toBeUndefined();
    expect((await service.getByTaskNo("T202603050001"))?.taskId).toBe("T1");
  });

  it("markDispatched is idempotent and refuses another external number", async () => {
    expect((await service.markDispatched("T1", "ACS-1")).status).toBe(TaskStatus.DISPATCHED);
    expect((await service.markDispatched("T1", "ACS-1")).version).toBe(2);
    expect(await refusal(service.markDispatched("T1", "ACS-2"))).toBe("CONFLICT");
  });

  it("a fault anywhere in the feedback transaction writes nothing: no status, no log row, no event", async () => {
    for (const op of ["task.insertFeedback", "task.updateTask", "task.appendEvents", "task.commit"]) {
      pipeline.faults.failNext(op);
      expect(await refusal(service.feedback({ taskId: "T1", externalEventId: "E1", status: "FINISHED" }))).toBe("INFRA");
      expect((await store.get("T1"))?.status).toBe(TaskStatus.CREATED);
      expect(await store.feedback("T1")).toEqual([]);
      expect(pipeline.tables.events).toEqual([]);
    }
    const ok = await service.feedback({ taskId: "T1", externalEventId: "E1", status: "FINISHED" });
    expect([ok.entry.outcome, ok.task.status, pipeline.tables.events.length]).toEqual(["APPLIED", TaskStatus.FINISHED_PENDING_CALLBACK, 1]);
  });

  it("an unknown COMMIT outcome: the external system's retry gets the first answer, and one event exists", async () => {
    store.commitUnknownNext = true;
    expect(await refusal(service.feedback({ taskId: "T1", externalEventId: "E1", status: "FINISHED" }))).toBe("COMMIT_UNKNOWN");
    const retry = await service.feedback({ taskId: "T1", externalEventId: "E1", status: "FINISHED" });
    expect([retry.duplicate, retry.entry.outcome, retry.entry.eventId]).toEqual([true, "APPLIED", "T1#2"]);
    expect(pipeline.tables.events).toHaveLength(1);
  });

  it("cancel of an undispatched task is a CANCELLED feedback; a later FINISHED is rejected and publishes nothing", async () => {
    const cancel = await service.feedback({ taskId: "T1", externalEventId: "cancel-req-1", status: "CANCELLED", reason: "人工取消" });
    expect(cancel.task.status).toBe(TaskStatus.CANCEL_PENDING_CALLBACK);
    const late = await service.feedback({ taskId: "T1", externalEventId: "ACS-9", status: "FINISHED" });
    expect(late.entry.outcome).toBe("REJECTED");
    expect(pipeline.tables.events.map((e) => (e.payload as { eventType: string }).eventType)).toEqual(["TASK_CANCELLED"]);
  });

  it("a FAILURE callback keeps the task waiting with the error; a later SUCCESS ends it; repeats are harmless", async () => {
    await service.feedback({ taskId: "T1", externalEventId: "E1", status: "FINISHED" });
    const failed = await service.callback({ taskId: "T1", eventId: "T1#2", result: "FAILURE", message: "unknown handler code" });
    expect([failed.entry.outcome, failed.task.status, failed.task.callbackError]).toEqual(["RECORDED", TaskStatus.FINISHED_PENDING_CALLBACK, "unknown handler code"]);
    const ok = await service.callback({ taskId: "T1", eventId: "T1#2", result: "SUCCESS" });
    expect([ok.entry.outcome, ok.task.status, ok.task.callbackError]).toEqual(["APPLIED", TaskStatus.FINISHED, null]);
    const again = await service.callback({ taskId: "T1", eventId: "T1#2", result: "SUCCESS" });
    expect([again.entry.outcome, again.task.version]).toEqual(["DUPLICATE", ok.task.version]);
    const wrong = await service.callback({ taskId: "T1", eventId: "T1#7", result: "SUCCESS" });
    expect(wrong.entry.outcome).toBe("REJECTED");
    expect((await store.callbacks("T1")).map((c) => c.outcome)).toEqual(["RECORDED", "APPLIED", "DUPLICATE", "REJECTED"]);
  });

  it("topic-per-owner routing writes the event to the owner's target", async () => {
    const perOwner = new TaskService({ store, clock, routing: { mode: "topic-per-owner", topicPattern: "{owner}_TASK_EVENT_TOPIC", owners: ["LMS", "WMS"] } });
    await perOwner.feedback({ taskId: "T1", externalEventId: "E1", status: "FINISHED" });
    expect(pipeline.tables.events[0]?.target).toBe("KAFKA:task:LMS");
  });
});
