import { fc, it as prop } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "@msgx/core";
import { evolveTask, isLegalTaskTransition, LEGAL_TASK_FROM, type TaskTransition } from "../src/task-machine.js";
import { FINAL_TASK_STATUSES, newTaskRecord, TASK_STATUSES, TaskStatus, type TaskRecord } from "../src/task-record.js";

const T0 = Date.UTC(2026, 6, 13);
const created = newTaskRecord(
  { taskId: "T1", ownerService: "LMS", handlerCode: "LMS_STOCK_AREA_CALL_TUBE", bizType: "STOCK_AREA_CALL_TUBE", bizId: "B1", externalSystem: "ACS" },
  T0, "T202607130001",
);
const at = (status: TaskStatus): TaskRecord => ({ ...created, status, lastEventId: "T1#1" });

const TRANSITIONS: readonly TaskTransition[] = [
  { type: "dispatched", externalTaskNo: "ACS-1" },
  { type: "executing" },
  { type: "finished", eventId: "T1#2", reason: null },
  { type: "cancelled", eventId: "T1#2", reason: "人工取消" },
  { type: "callbackSucceeded" },
  { type: "callbackFailed", error: "dead" },
  { type: "dispatchFailed", error: "ACS busy", nextDispatchAt: T0 + 1_000 },
  { type: "dispatchRefused", reason: "unknown task type" },
  { type: "replayed" },
  { type: "callbackRedelivered" },
];

describe("task state machine", () => {
  it("every status x transition is legal exactly when the table says so; illegal ones throw", () => {
    let legal = 0;
    for (const status of TASK_STATUSES) {
      for (const t of TRANSITIONS) {
        if (LEGAL_TASK_FROM[t.type].includes(status)) {
          legal += 1;
          const next = evolveTask(at(status), t, T0 + 5);
          expect(next.version).toBe(2);
          expect(next.updatedAt).toBe(T0 + 5);
        } else {
          expect(() => evolveTask(at(status), t, T0)).toThrow(IllegalTransitionError);
        }
      }
    }
    // dispatched, executing, finished, cancelled, callback x2, dispatchFailed, dispatchRefused, replayed, redelivered
    expect(legal).toBe(1 + 3 + 3 + 3 + 2 + 2 + 1 + 1 + 2 + 2);
  });

  it("the terminal statuses have no way out", () => {
    for (const status of FINAL_TASK_STATUSES) {
      for (const t of TRANSITIONS) expect(isLegalTaskTransition(status, t.type)).toBe(false);
    }
  });

  it("finished / cancelled wait for the callback and remember the event; SUCCESS ends them", () => {
    const fin = evolveTask(at(TaskStatus.DISPATCHED), { type: "finished", eventId: "T1#2", reason: "ok", externalTaskNo: "ACS-9" }, T0);
    expect([fin.status, fin.lastEventId, fin.statusReason, fin.externalTaskNo]).toEqual([TaskStatus.FINISHED_PENDING_CALLBACK, "T1#2", "ok", "ACS-9"]);
    const failed = evolveTask(fin, { type: "callbackFailed", error: "handler dead" }, T0);
    expect([failed.status, failed.callbackError]).toEqual([TaskStatus.FINISHED_PENDING_CALLBACK, "handler dead"]);
    const done = evolveTask(failed, { type: "callbackSucceeded" }, T0);
    expect([done.status, done.callbackError]).toEqual([TaskStatus.FINISHED, null]);
    const can = evolveTask(at(TaskStatus.CREATED), { type: "cancelled", eventId: "T1#2", reason: "人工取消" }, T0);
    expect(evolveTask(can, { type: "callbackSucceeded" }, T0).status).toBe(TaskStatus.CANCELLED);
  });

  it("dispatch: a failure spends an attempt and stays CREATED; a refusal is FAILED with the reason; acceptance ends the wait", () => {
    const waiting = newTaskRecord({ taskId: "T1", ownerService: "LMS", handlerCode: "H", bizType: "B", bizId: "B1", externalSystem: "ACS" }, T0, "T202607130001", T0);
    const failed = evolveTask(waiting, { type: "dispatchFailed", error: "busy", nextDispatchAt: T0 + 2_000 }, T0 + 1);
    expect([failed.status, failed.dispatchAttempts, failed.nextDispatchAt, failed.dispatchError]).toEqual([TaskStatus.CREATED, 1, T0 + 2_000, "busy"]);
    const accepted = evolveTask(failed, { type: "dispatched", externalTaskNo: "ACS-1", attempted: true }, T0 + 2_000);
    expect([accepted.status, accepted.dispatchAttempts, accepted.nextDispatchAt, accepted.dispatchError, accepted.externalTaskNo]).toEqual([TaskStatus.DISPATCHED, 2, null, null, "ACS-1"]);
    const manual = evolveTask(waiting, { type: "dispatched", externalTaskNo: "ACS-2" }, T0 + 1);
    expect([manual.dispatchAttempts, manual.nextDispatchAt]).toEqual([0, null]);
    const refused = evolveTask(failed, { type: "dispatchRefused", reason: "bad type" }, T0 + 3);
    expect([refused.status, refused.statusReason, refused.dispatchAttempts, refused.nextDispatchAt]).toEqual([TaskStatus.FAILED, "bad type", 2, null]);
    // Any other way out of CREATED ends the wait for the dispatch job too.
    expect(evolveTask(waiting, { type: "cancelled", eventId: "T1#2", reason: null }, T0 + 1).nextDispatchAt).toBeNull();
    expect(evolveTask(waiting, { type: "executing" }, T0 + 1).nextDispatchAt).toBeNull();
  });

  it("replay clears the FAILURE; a redelivery counts the alert; both stay pending", () => {
    const pending = { ...at(TaskStatus.FINISHED_PENDING_CALLBACK), callbackError: "dead" };
    const replayed = evolveTask(pending, { type: "replayed" }, T0 + 1);
    expect([replayed.status, replayed.callbackError, replayed.lastEventId]).toEqual([TaskStatus.FINISHED_PENDING_CALLBACK, null, "T1#1"]);
    const alerted = evolveTask(pending, { type: "callbackRedelivered" }, T0 + 9);
    expect([alerted.status, alerted.callbackAlerts, alerted.callbackAlertAt, alerted.callbackError]).toEqual([TaskStatus.FINISHED_PENDING_CALLBACK, 1, T0 + 9, "dead"]);
  });

  prop.prop([fc.array(fc.constantFrom(...TRANSITIONS), { maxLength: 12 })])("any legal path raises the version by one per step and publishes at most one event", (path) => {
    let task = created;
    let steps = 0;
    let events = 0;
    for (const t of path) {
      if (!isLegalTaskTransition(task.status, t.type)) continue;
      const before = task.status;
      task = evolveTask(task, t, T0);
      steps += 1;
      if ((t.type === "finished" || t.type === "cancelled") && before !== task.status) events += 1;
    }
    expect(task.version).toBe(1 + steps);
    expect(events).toBeLessThanOrEqual(1);
  });
});
