import { states, type ValueOf } from "@msgx/core";

/**
 * The owner side's consume log (seed 001 §13.2: `biz_task_event_consume_log`): one row per task
 * event an owner service took on, keyed by the event's `eventId`.
 *
 * Handling states (`status`):
 * - (no row): the event was never tried, or every try rolled back and crashed before recording.
 * - `FAILED`: entered when a handler attempt failed (its transaction rolled back; `errorMsg`,
 *   `attempts`, `nextAttemptAt` say why and when next). Leaves to SUCCEEDED on a later attempt,
 *   to DEAD when the attempts are used up.
 * - `SUCCEEDED`: terminal. Written in the handler's own transaction, so the business writes and
 *   this row commit together: a redelivered event finds it and is acknowledged unrun.
 * - `DEAD`: terminal. The dead-letter record: attempts used up, an unknown handler code, an
 *   unreadable record. `errorMsg` says why and `payload` keeps the event for review and replay.
 *
 * Callback states (`callbackStatus`), the owner's outbox for its report to the task service:
 * - null: nothing to report (FAILED, or a record too broken to name its task).
 * - `PENDING`: set with SUCCEEDED (result SUCCESS) or DEAD (result FAILURE), due at
 *   `callbackNextAt`. A failed try backs off (`callbackAttempts`, `callbackError`) without limit:
 *   the task service being down must not lose the report.
 * - `SENT`: terminal; the task service recorded it.
 * - `REJECTED`: terminal; the task service refused it for good (`callbackError` says why).
 */
export const TaskConsumeStatus = states("SUCCEEDED", "FAILED", "DEAD");
export type TaskConsumeStatus = ValueOf<typeof TaskConsumeStatus>;

export const TaskCallbackStatus = states("PENDING", "SENT", "REJECTED");
export type TaskCallbackStatus = ValueOf<typeof TaskCallbackStatus>;

/** A stored consume log row. */
export interface TaskConsumeLogEntry {
  readonly eventId: string;
  /** Empty for a record too broken to name it (likewise owner, handler code and event type). */
  readonly taskId: string;
  readonly ownerService: string;
  readonly handlerCode: string;
  readonly eventType: string;
  readonly status: TaskConsumeStatus;
  readonly errorMsg: string | null;
  /** Failed attempts so far (a SUCCEEDED row keeps the failures before its success). */
  readonly attempts: number;
  /** FAILED: when the next attempt is due; otherwise null. */
  readonly nextAttemptAt: number | null;
  /** The event as received (the parsed message, or the raw value of an unreadable record). */
  readonly payload: unknown;
  /** The relay's `msgx-event-id` header of the record. */
  readonly deliveryEventId: string | null;
  readonly callbackStatus: TaskCallbackStatus | null;
  readonly callbackAttempts: number;
  readonly callbackNextAt: number | null;
  readonly callbackError: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What the consumer writes for an event: the row without its callback bookkeeping. */
export interface TaskConsumeLogWrite
  extends Pick<
    TaskConsumeLogEntry,
    "eventId" | "taskId" | "ownerService" | "handlerCode" | "eventType" | "status" | "errorMsg" | "attempts" | "nextAttemptAt" | "payload" | "deliveryEventId"
  > {
  /** True when the task service is to be told (SUCCEEDED, or DEAD of an event that names its task). */
  readonly callback: boolean;
  readonly at: number;
}

/** The callback result a finished row reports. */
export const taskCallbackResultOf = (entry: Pick<TaskConsumeLogEntry, "status">): "SUCCESS" | "FAILURE" =>
  entry.status === TaskConsumeStatus.SUCCEEDED ? "SUCCESS" : "FAILURE";

/** True when the event needs no further handling. */
export const isTaskEventSettled = (entry: Pick<TaskConsumeLogEntry, "status">): boolean =>
  entry.status === TaskConsumeStatus.SUCCEEDED || entry.status === TaskConsumeStatus.DEAD;
