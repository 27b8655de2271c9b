/**
 * What the task service accepts from a caller (an HTTP body, a Kafka record): each check throws
 * `TaskRequestError("INVALID")` naming the field, or returns the request with its defaults filled.
 */
import { TaskCallbackResult, type TaskCallback } from "./task-callback.js";
import { TaskFeedbackStatus, type TaskFeedback } from "./task-feedback.js";
import { assertRoutingCode, assertTaskId } from "./task-record.js";
import type { TaskReplayFilter } from "./task-replay.js";
import { TaskRequestError } from "./task-request-error.js";

/** The most tasks one replay takes. */
export const MAX_TASK_REPLAY = 1_000;

const FEEDBACK_STATUSES: readonly string[] = Object.values(TaskFeedbackStatus);
const CALLBACK_RESULTS: readonly TaskCallbackResult[] = Object.values(TaskCallbackResult);

/** Null when absent; else a string of at most `max` characters. */
export const optionalText = (v: unknown, field: string, max = 1_000): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length > max) throw new TaskRequestError("INVALID", `${field} must be a string of at most ${max} characters`);
  return v;
};

/** A non-blank string of at most `max` characters. */
export const requiredText = (v: unknown, field: string, max: number): string => {
  if (typeof v !== "string" || v.trim() === "" || v.length > max) throw new TaskRequestError("INVALID", `${field} must be a non-blank string of at most ${max} characters`);
  return v;
};

/** A replay filter as the service takes it: task ids (deduplicated), an owner or a handler code; at least one. */
export function checkTaskReplayFilter(filter: TaskReplayFilter): TaskReplayFilter {
  const taskIds = filter.taskIds;
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || taskIds.length === 0 || taskIds.length > MAX_TASK_REPLAY) {
      throw new TaskRequestError("INVALID", `taskIds must be a list of 1..${MAX_TASK_REPLAY} task ids`);
    }
    for (const id of taskIds) assertTaskId(id);
  }
  if (filter.owner !== undefined) assertRoutingCode(filter.owner, "owner");
  if (filter.handlerCode !== undefined) assertRoutingCode(filter.handlerCode, "handlerCode");
  if (taskIds === undefined && filter.owner === undefined && filter.handlerCode === undefined) {
    throw new TaskRequestError("INVALID", "a replay needs taskIds, owner or handlerCode");
  }
  return {
    ...(taskIds !== undefined ? { taskIds: [...new Set(taskIds)] } : {}),
    ...(filter.owner !== undefined ? { owner: filter.owner } : {}),
    ...(filter.handlerCode !== undefined ? { handlerCode: filter.handlerCode } : {}),
  };
}

/** A feedback as the service takes it: known status, bounded texts (progress only on EXECUTING). */
export function checkTaskFeedback(input: TaskFeedback): TaskFeedback {
  assertTaskId(input.taskId);
  if (typeof input.externalEventId !== "string" || input.externalEventId === "" || input.externalEventId.length > 256) {
    throw new TaskRequestError("INVALID", "externalEventId must be a string of 1..256 characters");
  }
  if (!FEEDBACK_STATUSES.includes(input.status)) {
    throw new TaskRequestError("INVALID", `status must be one of ${FEEDBACK_STATUSES.join(", ")}: ${JSON.stringify(input.status)}`);
  }
  return {
    taskId: input.taskId,
    externalEventId: input.externalEventId,
    status: input.status,
    externalTaskNo: optionalText(input.externalTaskNo, "externalTaskNo"),
    reason: optionalText(input.reason, "reason"),
    progress: input.status === TaskFeedbackStatus.EXECUTING ? optionalText(input.progress, "progress", 2_000) : null,
  };
}

/** A callback as the service takes it: a task id, an event id and SUCCESS or FAILURE. */
export function checkTaskCallback(input: TaskCallback): TaskCallback {
  assertTaskId(input.taskId);
  if (typeof input.eventId !== "string" || input.eventId === "") throw new TaskRequestError("INVALID", "eventId is required");
  if (!CALLBACK_RESULTS.includes(input.result)) {
    throw new TaskRequestError("INVALID", `result must be SUCCESS or FAILURE: ${JSON.stringify(input.result)}`);
  }
  return { taskId: input.taskId, eventId: input.eventId, result: input.result, message: optionalText(input.message, "message") };
}
