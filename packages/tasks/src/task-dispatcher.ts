import type { TaskRecord } from "./task-record.js";

/**
 * The external system's answer to a dispatch (seed 001 `AcsTaskDispatcher`):
 * - `accepted`: it holds the task under `externalTaskNo` (the task becomes DISPATCHED);
 * - `refused`: it will never take this task (a bad request, an unknown task type): the task
 *   becomes FAILED with `reason`;
 * - `failed`: it could not take it now (its own error): one attempt is spent and the dispatch job
 *   tries again after a backoff.
 */
export type DispatchAnswer =
  | { readonly kind: "accepted"; readonly externalTaskNo: string }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "failed"; readonly reason: string };

/**
 * The external system's answer to a cancel (seed 001 §10):
 * - `cancelled`: it stopped the task; the task service records the cancel (CANCEL_PENDING_CALLBACK);
 * - `too-late`: it had already finished the task; the task finishes normally (its FINISHED report
 *   comes or came as feedback);
 * - `failed`: it could not cancel it now; nothing changes, the caller may ask again.
 */
export type CancelAnswer =
  | { readonly kind: "cancelled" }
  | { readonly kind: "too-late"; readonly status: "FINISHED" }
  | { readonly kind: "failed"; readonly reason: string };

/**
 * The way to the system that executes tasks (ACS): hands a task over and cancels it.
 *
 * Every implementation guarantees:
 * - `dispatch` is idempotent per task: the idempotency key is `task.taskId`, and a repeat for a
 *   task already accepted answers `accepted` with the same `externalTaskNo` (the dispatch job
 *   repeats a call whose answer it lost);
 * - an answer is only given when the external system gave one: `refused` only for a permanent
 *   refusal, `failed` for a transient error of the external system;
 * - when the external system cannot be reached (connection refused, timeout, the signal aborted),
 *   the call throws `MsgxError("DEPENDENCY_UNAVAILABLE")`: no answer, so no attempt is spent;
 * - `cancel` is idempotent too: cancelling a task already cancelled answers `cancelled`; a task
 *   the external system finished answers `too-late`; a task it never accepted answers `cancelled`
 *   (nothing runs there). It is asked for a task it accepted (`externalTaskNo` known, or an
 *   EXECUTING report received) and for a task still waiting for the dispatch job, whose dispatch
 *   may have been accepted with the answer lost (then by `taskId`, the dispatch's idempotency key);
 * - neither call ever touches the task service's store: the caller records the answer.
 */
export interface TaskDispatcher {
  dispatch(task: TaskRecord, signal?: AbortSignal): Promise<DispatchAnswer>;
  cancel(task: TaskRecord, reason: string, signal?: AbortSignal): Promise<CancelAnswer>;
}
