/**
 * Why the task service refused a request of its callers (an owner creating a task, the external
 * system reporting feedback, an owner calling back). These are answers to bad input, not faults
 * of a dependency: HTTP maps them to 400 / 404 / 409 / 422 (`TASK_REQUEST_ERROR_HTTP_STATUS`) and
 * nothing is retried as is.
 *
 * - `INVALID` (400): the request is malformed (a missing field, a name outside its pattern).
 * - `NOT_FOUND` (404): no task with that id.
 * - `CONFLICT` (409): the request contradicts what is stored (a task id reused with other routing).
 * - `ILLEGAL_STATE` (409): the task's status does not allow it (cancel a finished or failed task).
 * - `TOO_LATE` (409): a cancel came after the external system finished the task; it finishes normally.
 * - `CANCEL_FAILED` (409): the external system could not cancel the task now (its own error);
 *   nothing changed, the caller may ask again.
 * - `UNKNOWN_OWNER` (422): the task's owner service is not configured for routing.
 */
export type TaskRequestErrorCode = "INVALID" | "NOT_FOUND" | "CONFLICT" | "ILLEGAL_STATE" | "TOO_LATE" | "CANCEL_FAILED" | "UNKNOWN_OWNER";

/** The HTTP status of each refusal (the runner's routes and the example answer with it). */
export const TASK_REQUEST_ERROR_HTTP_STATUS: Readonly<Record<TaskRequestErrorCode, number>> = {
  INVALID: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  ILLEGAL_STATE: 409,
  TOO_LATE: 409,
  CANCEL_FAILED: 409,
  UNKNOWN_OWNER: 422,
};

export class TaskRequestError extends Error {
  override readonly name = "TaskRequestError";
  constructor(
    readonly code: TaskRequestErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const isTaskRequestError = (e: unknown): e is TaskRequestError => e instanceof TaskRequestError;
