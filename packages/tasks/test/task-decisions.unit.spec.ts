import { describe, expect, it } from "vitest";
import { decideTaskCallback } from "../src/task-callback.js";
import { decideTaskFeedback, type TaskFeedback, type TaskFeedbackEntry } from "../src/task-feedback.js";
import { newTaskRecord, TaskStatus, type TaskRecord } from "../src/task-record.js";
import { DEFAULT_TASK_ROUTING } from "../src/task-routing-config.js";
import type { TaskEventMessage } from "../src/task-event.js";

const T0 = Date.UTC(2026, 6, 13, 8);
const task = (status: TaskStatus, lastEventId: string | null = null): TaskRecord => ({
  ...newTaskRecord(
    { taskId: "T1", ownerService: "LMS", handlerCode: "LMS_SLITTER_DOWN_AGV", bizType: "SLITTER_DOWN", bizId: "B1", externalSystem: "ACS", payload: { to_material: "A" } },
    T0, "T202607130001",
  ),
  status,
  version: 3,
  lastEventId,
});
const fb = (status: TaskFeedback["status"], externalEventId = "E1"): TaskFeedback => ({ taskId: "T1", externalEventId, status, reason: status === "CANCELLED" ? "人工取消" : null });
const decide = (t: TaskRecord | undefined, f: TaskFeedback, prior?: TaskFeedbackEntry) => decideTaskFeedback(t, prior, f, DEFAULT_TASK_ROUTING, T0 + 1);

describe("decideTaskFeedback", () => {
  it("unknown task: nothing is written", () => {
    expect(decide(undefined, fb("FINISHED"))).toEqual({ kind: "unknown-task" });
  });

  it("the same key again answers the first entry and writes nothing", () => {
    const prior: TaskFeedbackEntry = { taskId: "T1", externalEventId: "E1", status: "FINISHED", outcome: "APPLIED", reason: null, eventId: "T1#4", receivedAt: T0 };
    expect(decide(task(TaskStatus.FINISHED_PENDING_CALLBACK, "T1#4"), fb("FINISHED"), prior)).toEqual({ kind: "duplicate", entry: prior });
  });

  it("FINISHED on an active task: FINISHED_PENDING_CALLBACK plus one TASK_FINISHED event for the owner", () => {
    for (const status of [TaskStatus.CREATED, TaskStatus.DISPATCHED, TaskStatus.EXECUTING]) {
      const d = decide(task(status), { ...fb("FINISHED"), externalTaskNo: "ACS-7" });
      if (d.kind !== "logged") throw new Error(d.kind);
      expect(d.entry).toMatchObject({ outcome: "APPLIED", eventId: "T1#4" });
      expect(d.task).toMatchObject({ status: TaskStatus.FINISHED_PENDING_CALLBACK, version: 4, lastEventId: "T1#4", externalTaskNo: "ACS-7" });
      expect(d.event).toMatchObject({ target: "KAFKA:task", partitionKey: "T1", eventType: "UPSERT", stateVersion: 4, sourceMsgId: 0 });
      const msg = d.event!.payload as TaskEventMessage;
      expect(msg).toMatchObject({ schemaVersion: 1, eventId: "T1#4", eventType: "TASK_FINISHED", taskId: "T1", taskVersion: 4, ownerService: "LMS", handlerCode: "LMS_SLITTER_DOWN_AGV", externalEventId: "E1", externalTaskNo: "ACS-7", payload: { to_material: "A" } });
      expect(msg.occurredAt).toBe(new Date(T0 + 1).toISOString());
    }
  });

  it("CANCELLED on an active task: CANCEL_PENDING_CALLBACK and TASK_CANCELLED carrying the reason", () => {
    const d = decide(task(TaskStatus.CREATED), fb("CANCELLED"));
    if (d.kind !== "logged") throw new Error(d.kind);
    expect(d.task?.status).toBe(TaskStatus.CANCEL_PENDING_CALLBACK);
    expect(d.event?.payload).toMatchObject({ eventType: "TASK_CANCELLED", reason: "人工取消" });
  });

  it("a repeat of a fact under a new id is IGNORED; a contradiction is REJECTED; neither publishes", () => {
    const cases: [TaskStatus, TaskFeedback["status"], string][] = [
      [TaskStatus.FINISHED_PENDING_CALLBACK, "FINISHED", "IGNORED"],
      [TaskStatus.FINISHED, "FINISHED", "IGNORED"],
      [TaskStatus.CANCEL_PENDING_CALLBACK, "CANCELLED", "IGNORED"],
      [TaskStatus.CANCELLED, "CANCELLED", "IGNORED"],
      [TaskStatus.CANCEL_PENDING_CALLBACK, "FINISHED", "REJECTED"],
      [TaskStatus.CANCELLED, "FINISHED", "REJECTED"],
      [TaskStatus.FINISHED_PENDING_CALLBACK, "CANCELLED", "REJECTED"],
      [TaskStatus.FINISHED, "CANCELLED", "REJECTED"],
      [TaskStatus.FINISHED, "EXECUTING", "IGNORED"],
      [TaskStatus.FINISHED_PENDING_CALLBACK, "EXECUTING", "IGNORED"],
      [TaskStatus.CANCEL_PENDING_CALLBACK, "EXECUTING", "IGNORED"],
      [TaskStatus.CANCELLED, "EXECUTING", "IGNORED"],
      [TaskStatus.FAILED, "EXECUTING", "IGNORED"],
      [TaskStatus.FAILED, "FINISHED", "REJECTED"],
      [TaskStatus.FAILED, "CANCELLED", "REJECTED"],
    ];
    for (const [status, report, outcome] of cases) {
      const d = decide(task(status, "T1#3"), fb(report, "E2"));
      if (d.kind !== "logged") throw new Error(d.kind);
      expect([status, report, d.entry.outcome, d.task, d.event]).toEqual([status, report, outcome, null, null]);
      expect(d.entry.reason).not.toBeNull();
    }
  });

  it("EXECUTING on CREATED / DISPATCHED / EXECUTING (progress): EXECUTING plus one TASK_EXECUTING event with the message and progress", () => {
    for (const status of [TaskStatus.CREATED, TaskStatus.DISPATCHED, TaskStatus.EXECUTING]) {
      const d = decide(task(status), { ...fb("EXECUTING"), reason: "AGV 7 started", progress: '{"step":2,"of":5}', externalTaskNo: "ACS-7" });
      if (d.kind !== "logged") throw new Error(d.kind);
      expect([d.entry.outcome, d.entry.eventId, d.task?.status, d.task?.version, d.task?.lastEventId]).toEqual(["APPLIED", "T1#4", TaskStatus.EXECUTING, 4, null]);
      expect(d.event).toMatchObject({ target: "KAFKA:task", partitionKey: "T1", stateVersion: 4, headers: { "msgx-task-event": "TASK_EXECUTING", "msgx-owner": "LMS" } });
      expect(d.event!.payload).toMatchObject({ eventId: "T1#4", eventType: "TASK_EXECUTING", taskVersion: 4, reason: "AGV 7 started", progress: '{"step":2,"of":5}', externalTaskNo: "ACS-7" });
    }
    const finished = decide(task(TaskStatus.EXECUTING), fb("FINISHED"));
    expect(finished.kind === "logged" && (finished.event?.payload as TaskEventMessage).progress).toBeNull();
  });
});

describe("decideTaskCallback", () => {
  const cb = (result: "SUCCESS" | "FAILURE", eventId = "T1#3") => ({ taskId: "T1", eventId, result, message: result === "FAILURE" ? "handler dead-lettered" : "ok" });

  it("SUCCESS for the awaited event ends the task; FAILURE is recorded and keeps it waiting", () => {
    const ok = decideTaskCallback(task(TaskStatus.FINISHED_PENDING_CALLBACK, "T1#3"), cb("SUCCESS"), T0);
    if (ok.kind !== "logged") throw new Error(ok.kind);
    expect([ok.entry.outcome, ok.task?.status]).toEqual(["APPLIED", TaskStatus.FINISHED]);
    const cancelled = decideTaskCallback(task(TaskStatus.CANCEL_PENDING_CALLBACK, "T1#3"), cb("SUCCESS"), T0);
    expect(cancelled.kind === "logged" && cancelled.task?.status).toBe(TaskStatus.CANCELLED);
    const failed = decideTaskCallback(task(TaskStatus.FINISHED_PENDING_CALLBACK, "T1#3"), cb("FAILURE"), T0);
    if (failed.kind !== "logged") throw new Error(failed.kind);
    expect([failed.entry.outcome, failed.task?.status, failed.task?.callbackError]).toEqual(["RECORDED", TaskStatus.FINISHED_PENDING_CALLBACK, "handler dead-lettered"]);
  });

  it("a repeat after the end is a harmless DUPLICATE; a mismatch is REJECTED; an unknown task writes nothing", () => {
    const dup = decideTaskCallback(task(TaskStatus.FINISHED, "T1#3"), cb("SUCCESS"), T0);
    expect(dup.kind === "logged" && [dup.entry.outcome, dup.task]).toEqual(["DUPLICATE", null]);
    const other = decideTaskCallback(task(TaskStatus.FINISHED_PENDING_CALLBACK, "T1#3"), cb("SUCCESS", "T1#2"), T0);
    expect(other.kind === "logged" && [other.entry.outcome, other.task]).toEqual(["REJECTED", null]);
    const early = decideTaskCallback(task(TaskStatus.DISPATCHED), cb("SUCCESS"), T0);
    expect(early.kind === "logged" && early.entry.outcome).toBe("REJECTED");
    expect(decideTaskCallback(undefined, cb("SUCCESS"), T0)).toEqual({ kind: "unknown-task" });
  });
});
