/**
 * Why the task service refused a request of its callers (an owner creating a task, the external
 * system reporting feedback, an owner calling back). These are answers to bad input, not faults
 * of a dependency: HTTP maps them to 400 / 404 / 409 and nothing is retried.
 *
 * - `INVALID`: the request is malformed (a missing field, a name outside its pattern).
 * - `NOT_FOUND`: no task with that id.
 * - `CONFLICT`: the request contradicts what is stored (a task id reused with other routing).
 */
export type TaskRequestErrorCode = "INVALID" | "NOT_FOUND" | "CONFLICT";

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
