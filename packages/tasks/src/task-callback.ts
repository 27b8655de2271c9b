import type { TaskEventMessage } from "./task-event.js";
import { evolveTask } from "./task-machine.js";
import { awaitsCallback, FINAL_TASK_STATUSES, type TaskRecord } from "./task-record.js";
import { states, type ValueOf } from "@msgx/core";

/** The owner's verdict on a task event: its handler committed (SUCCESS) or dead-lettered it (FAILURE). */
export const TaskCallbackResult = states("SUCCESS", "FAILURE");
export type TaskCallbackResult = ValueOf<typeof TaskCallbackResult>;

/**
 * The owner reporting back (seed 001 §9: `POST /rpc-api/task/callback-result`, or a record on the
 * result topic) on the task event it handled, named by that event's `taskId` and `eventId`. Safe
 * to repeat: the task service answers a repeated callback without change.
 */
export interface TaskCallback extends Pick<TaskEventMessage, "taskId" | "eventId"> {
  readonly result: TaskCallbackResult;
  readonly message?: string | null;
}

/**
 * What a logged callback did:
 * - `APPLIED`: SUCCESS moved the task to FINISHED / CANCELLED;
 * - `RECORDED`: FAILURE was recorded on the task (`callbackError`); it stays pending;
 * - `DUPLICATE`: the task was already final for that event: nothing changed (harmless);
 * - `REJECTED`: it does not match the task (another event id, the task is not waiting).
 */
export const TaskCallbackOutcome = states("APPLIED", "RECORDED", "DUPLICATE", "REJECTED");
export type TaskCallbackOutcome = ValueOf<typeof TaskCallbackOutcome>;

/** A row of the callback log (`task_callback`): every callback received (its message null when it had none), repeats included. */
export interface TaskCallbackEntry extends Required<TaskCallback> {
  readonly outcome: TaskCallbackOutcome;
  readonly reason: string | null;
  readonly receivedAt: number;
}

export type TaskCallbackDecision =
  | { readonly kind: "unknown-task" }
  | { readonly kind: "logged"; readonly entry: TaskCallbackEntry; readonly task: TaskRecord | null };

/** Decides on a callback, given the task (locked). Written in one transaction: the log row and the task. */
export function decideTaskCallback(task: TaskRecord | undefined, callback: TaskCallback, now: number): TaskCallbackDecision {
  if (task === undefined) return { kind: "unknown-task" };
  const entry = (outcome: TaskCallbackOutcome, reason: string | null): TaskCallbackEntry => ({
    taskId: callback.taskId,
    eventId: callback.eventId,
    result: callback.result,
    message: callback.message ?? null,
    outcome,
    reason,
    receivedAt: now,
  });
  if (task.lastEventId === null || task.lastEventId !== callback.eventId) {
    const expected = task.lastEventId === null ? "no event was published" : `expected ${task.lastEventId}`;
    return { kind: "logged", entry: entry(TaskCallbackOutcome.REJECTED, `event id does not match the task (${expected})`), task: null };
  }
  if (FINAL_TASK_STATUSES.includes(task.status)) {
    return { kind: "logged", entry: entry(TaskCallbackOutcome.DUPLICATE, `task already ${task.status}`), task: null };
  }
  if (!awaitsCallback(task.status)) {
    return { kind: "logged", entry: entry(TaskCallbackOutcome.REJECTED, `task is ${task.status}, not waiting for a callback`), task: null };
  }
  if (callback.result === TaskCallbackResult.SUCCESS) {
    return { kind: "logged", entry: entry(TaskCallbackOutcome.APPLIED, null), task: evolveTask(task, { type: "callbackSucceeded" }, now) };
  }
  const error = callback.message ?? "the owner reported FAILURE";
  return { kind: "logged", entry: entry(TaskCallbackOutcome.RECORDED, null), task: evolveTask(task, { type: "callbackFailed", error }, now) };
}
