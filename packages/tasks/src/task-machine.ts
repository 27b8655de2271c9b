/**
 * The lifecycle of a task in the task service (SPEC §3, seed 001), as pure functions.
 *
 * States:
 * - `CREATED`: entered when an owner service creates the task (`NewTask`). Not yet handed to the
 *   external system. Leaves to DISPATCHED when the dispatch is confirmed (the dispatch job's
 *   accepted answer, or `markDispatched`); to FAILED when the external system refuses it for good;
 *   straight to CANCEL_PENDING_CALLBACK when it is cancelled (nothing external to cancel); to
 *   EXECUTING or FINISHED_PENDING_CALLBACK when the external system reports on it anyway (the
 *   dispatch confirmation was lost, and the external system's report is the fact). A failed
 *   dispatch (transient) stays CREATED with one more attempt and the next one due later.
 * - `DISPATCHED`: the external system accepted the task (`externalTaskNo` is known). Leaves on
 *   the external system's feedback: EXECUTING, FINISHED or CANCELLED (a cancel of a dispatched
 *   task is asked of the external system first; its confirmation is that CANCELLED feedback).
 * - `EXECUTING`: the external system reported the task running (a TASK_EXECUTING event to the
 *   owner; each further report under a new id is a progress event, EXECUTING -> EXECUTING).
 *   Leaves on FINISHED or CANCELLED feedback.
 *   A DISPATCHED or EXECUTING task past its deadline, or silent past its heartbeat timeout, is
 *   marked overdue (one TASK_OVERDUE event per cause, `task-overdue.ts`) without leaving its
 *   status: the owner decides what to do (cancel it, wait).
 * - `FINISHED_PENDING_CALLBACK`: entered on FINISHED feedback, in the same transaction as the
 *   TASK_FINISHED outbox event addressed to the owner. Waits for the owner's callback: SUCCESS
 *   leaves to FINISHED; FAILURE (the owner's handler dead-lettered the event) stays here with
 *   `callbackError` set, for an operator, until a later SUCCESS.
 * - `CANCEL_PENDING_CALLBACK`: the same for CANCELLED feedback and TASK_CANCELLED; SUCCESS leaves
 *   to CANCELLED.
 *   Both pending statuses may be replayed (a FAILURE callback cleared, the event published again)
 *   and redelivered by the watchdog (counted on the task), without leaving the status.
 * - `FINISHED`, `CANCELLED`: terminal. Late feedback and repeated callbacks change nothing.
 * - `FAILED`: terminal; the external system refused the dispatch for good (`statusReason`). No
 *   owner event: the owner sees it by reading the task.
 *
 * A task publishes at most one final owner event in its life: FINISHED and CANCELLED exclude each
 * other (TASK_EXECUTING events come before it; a replay or redelivery republishes that same event).
 * Which input is legal, ignored or refused is decided by `decideTaskFeedback` / `decideTaskCallback`;
 * {@link evolveTask} is the one choke point that changes a task and refuses illegal transitions.
 */
import { IllegalTransitionError } from "@msgx/core";
import type { TaskOverdueReason } from "./task-overdue.js";
import { TaskStatus, type TaskRecord } from "./task-record.js";

/** What happened to a task; the input of {@link evolveTask}. */
export type TaskTransition =
  /** The external system accepted the task; `attempted`: the dispatch job's call (counted), not `markDispatched`. */
  | { readonly type: "dispatched"; readonly externalTaskNo: string; readonly attempted?: boolean }
  /** A dispatch call failed (transient): one attempt spent, the next one due at `nextDispatchAt`. */
  | { readonly type: "dispatchFailed"; readonly error: string; readonly nextDispatchAt: number }
  /** The external system refused the task for good. */
  | { readonly type: "dispatchRefused"; readonly reason: string }
  | { readonly type: "executing"; readonly externalTaskNo?: string | null }
  | { readonly type: "finished"; readonly eventId: string; readonly reason: string | null; readonly externalTaskNo?: string | null }
  | { readonly type: "cancelled"; readonly eventId: string; readonly reason: string | null; readonly externalTaskNo?: string | null }
  | { readonly type: "callbackSucceeded" }
  | { readonly type: "callbackFailed"; readonly error: string }
  /** An operator replayed the pending event: the FAILURE is cleared, the event goes out again. */
  | { readonly type: "replayed" }
  /** The watchdog alerted on the task and sent its pending event again. */
  | { readonly type: "callbackRedelivered" }
  /** The overdue job published TASK_OVERDUE for one cause (`task-overdue.ts`); the status stays. */
  | { readonly type: "overdue"; readonly reason: TaskOverdueReason };

const S = TaskStatus;
const ACTIVE = [S.CREATED, S.DISPATCHED, S.EXECUTING] as const;
const PENDING = [S.FINISHED_PENDING_CALLBACK, S.CANCEL_PENDING_CALLBACK] as const;

/** The statuses each transition may start from. */
export const LEGAL_TASK_FROM: Readonly<Record<TaskTransition["type"], readonly TaskStatus[]>> = {
  dispatched: [S.CREATED],
  dispatchFailed: [S.CREATED],
  dispatchRefused: [S.CREATED],
  // From EXECUTING: a progress report.
  executing: ACTIVE,
  finished: ACTIVE,
  cancelled: ACTIVE,
  callbackSucceeded: PENDING,
  callbackFailed: PENDING,
  replayed: PENDING,
  callbackRedelivered: PENDING,
  overdue: [S.DISPATCHED, S.EXECUTING],
};

/** True when `transition` may be applied to a task in `status`. */
export const isLegalTaskTransition = (status: TaskStatus, transition: TaskTransition["type"]): boolean =>
  LEGAL_TASK_FROM[transition].includes(status);

/**
 * Applies one transition: the version rises by one and `updatedAt` becomes `now`. Throws
 * `IllegalTransitionError` when the transition is not legal from the task's status (a bug of the
 * caller: input is classified before it gets here).
 */
export function evolveTask(task: TaskRecord, transition: TaskTransition, now: number): TaskRecord {
  if (!isLegalTaskTransition(task.status, transition.type)) {
    throw new IllegalTransitionError(`task ${task.taskId}: ${transition.type} is not legal from ${task.status}`);
  }
  const next = apply(task, transition, now);
  // Only a CREATED task waits for the dispatch job: whatever moved it on ends the wait.
  return next.status === S.CREATED ? next : { ...next, nextDispatchAt: null };
}

function apply(task: TaskRecord, transition: TaskTransition, now: number): TaskRecord {
  const base = { ...task, version: task.version + 1, updatedAt: now };
  switch (transition.type) {
    case "dispatched":
      return {
        ...base,
        ...signOfLife(task, now),
        status: S.DISPATCHED,
        externalTaskNo: transition.externalTaskNo,
        dispatchAttempts: task.dispatchAttempts + (transition.attempted === true ? 1 : 0),
        dispatchError: null,
      };
    case "dispatchFailed":
      return { ...base, dispatchAttempts: task.dispatchAttempts + 1, dispatchError: transition.error, nextDispatchAt: transition.nextDispatchAt };
    case "dispatchRefused":
      return { ...base, status: S.FAILED, dispatchAttempts: task.dispatchAttempts + 1, dispatchError: transition.reason, statusReason: transition.reason };
    case "executing":
      return { ...base, ...signOfLife(task, now), status: S.EXECUTING, externalTaskNo: transition.externalTaskNo ?? task.externalTaskNo };
    case "finished":
    case "cancelled":
      return {
        ...base,
        status: transition.type === "finished" ? S.FINISHED_PENDING_CALLBACK : S.CANCEL_PENDING_CALLBACK,
        externalTaskNo: transition.externalTaskNo ?? task.externalTaskNo,
        lastEventId: transition.eventId,
        statusReason: transition.reason,
      };
    case "callbackSucceeded":
      return { ...base, status: task.status === S.FINISHED_PENDING_CALLBACK ? S.FINISHED : S.CANCELLED, callbackError: null };
    case "callbackFailed":
      return { ...base, callbackError: transition.error };
    case "replayed":
      return { ...base, callbackError: null };
    case "callbackRedelivered":
      return { ...base, callbackAlerts: task.callbackAlerts + 1, callbackAlertAt: now };
    case "overdue":
      return transition.reason === "DEADLINE" ? { ...base, deadlineOverdueAt: now } : { ...base, heartbeatOverdueAt: now };
  }
}

/**
 * The dispatch and each EXECUTING report: the executing system's last sign of life is now (the
 * heartbeat is re-armed), and the deadline starts at the first of them.
 */
function signOfLife(task: TaskRecord, now: number): Pick<TaskRecord, "deadlineAt" | "lastProgressAt" | "heartbeatOverdueAt"> {
  const deadlineAt = task.deadlineAt ?? (task.deadlineMs === null ? null : now + task.deadlineMs);
  return { deadlineAt, lastProgressAt: now, heartbeatOverdueAt: null };
}
