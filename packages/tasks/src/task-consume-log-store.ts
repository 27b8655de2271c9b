import type { TaskCallbackStatus, TaskConsumeLogEntry, TaskConsumeLogWrite, TaskConsumeStatus } from "./task-consume-log.js";

/**
 * The consume log's side of one handler transaction. `Tx` is the handle the business writes go
 * through (a kysely transaction for PostgreSQL), so they commit with the log row.
 */
export interface TaskConsumeTx<Tx> {
  readonly handle: Tx;
  /**
   * Claims `eventId` for this transaction: waits while another transaction holds the same id,
   * then returns its row as committed (undefined when there is none). Two consumers handed the
   * same event (a rebalance) therefore run its handler one after the other, and the second sees
   * the first's SUCCEEDED row.
   */
  claim(eventId: string): Promise<TaskConsumeLogEntry | undefined>;
  /**
   * Writes the row SUCCEEDED (inserting it, or replacing a FAILED row and keeping its
   * `createdAt`), with `callbackStatus` PENDING due at `write.at` when `write.callback`.
   */
  succeed(write: TaskConsumeLogWrite): Promise<void>;
}

/** Which rows to list (all optional), ascending by `eventId`. */
export interface TaskConsumeLogFilter {
  readonly statuses?: readonly TaskConsumeStatus[];
  readonly callbackStatuses?: readonly TaskCallbackStatus[];
  readonly taskId?: string;
  readonly limit?: number;
}

/**
 * The owner service's consume log (`task_event_consume_log`), in the owner's own database.
 *
 * Every implementation guarantees:
 * - `transaction` commits everything written through `tx.handle` and `tx.succeed` atomically, or
 *   nothing when `fn` throws or the commit fails (then `fn` may be run again by the caller);
 *   a lost connection during COMMIT throws `MsgxError("COMMIT_UNKNOWN")` (the consumer re-reads
 *   the row on redelivery, so it is never applied twice);
 * - a SUCCEEDED row never changes status again, nor does a DEAD one except through `reopenDead`
 *   (an operator's replay); otherwise only their callback bookkeeping changes;
 * - `settleCallback` and `deferCallback` change only rows whose `callbackStatus` is PENDING,
 *   `reopenCallback` only rows whose `callbackStatus` is SENT (a REJECTED report stays refused);
 * - `purge` deletes only SUCCEEDED rows with nothing left to report (callback SENT or none): a
 *   FAILED row, a dead letter and an undelivered report are never purged;
 * - driver errors leave as `MsgxError` (connection loss and timeouts as `DEPENDENCY_UNAVAILABLE`).
 */
export interface TaskConsumeLogStore<Tx> {
  transaction<T>(fn: (tx: TaskConsumeTx<Tx>) => Promise<T>): Promise<T>;
  /** The committed row of `eventId`. */
  get(eventId: string): Promise<TaskConsumeLogEntry | undefined>;
  /**
   * Outside any handler transaction (it rolled back): records a failed attempt (`FAILED`) or a
   * dead letter (`DEAD`, callback PENDING when `write.callback`), inserting or replacing a FAILED
   * row. A SUCCEEDED or DEAD row is left as it is. Returns the row as stored afterwards.
   */
  recordFailure(write: TaskConsumeLogWrite): Promise<TaskConsumeLogEntry>;
  /** Rows whose callback is PENDING and due at `now` (`callbackNextAt <= now`), oldest due first, at most `limit`. */
  dueCallbacks(now: number, limit: number): Promise<readonly TaskConsumeLogEntry[]>;
  /** Ends a PENDING callback: SENT (recorded by the task service) or REJECTED (refused for good, `error` why). */
  settleCallback(eventId: string, status: "SENT" | "REJECTED", error: string | null, at: number): Promise<void>;
  /** Records a failed try of a PENDING callback: the new attempt count, when it is due again, why it failed. */
  deferCallback(eventId: string, attempts: number, nextAt: number, error: string): Promise<void>;
  list(filter: TaskConsumeLogFilter): Promise<readonly TaskConsumeLogEntry[]>;
  /**
   * An operator's replay of a dead letter: a DEAD row becomes FAILED with its attempts at 0, due at
   * `at` (so the handler runs again under the full budget), `errorMsg` = `note`, the delivery event
   * id of the replayed record, and no callback (the rerun writes a new one). Any other row, or none,
   * is left as it is. Returns the row as stored afterwards (undefined when there is none).
   */
  reopenDead(eventId: string, note: string, deliveryEventId: string | null, at: number): Promise<TaskConsumeLogEntry | undefined>;
  /**
   * The task service asked again (a redelivered event): a SENT callback becomes PENDING, due at
   * `at`, its error cleared, so the same result is reported once more; `callbackAttempts` keeps
   * counting the failed tries (it is the report's history). Returns true when it changed.
   */
  reopenCallback(eventId: string, at: number): Promise<boolean>;
  /**
   * Retention: deletes up to `limit` SUCCEEDED rows with nothing left to report (callback SENT or
   * none) last updated before `before`, oldest first (`updatedAt`, then `eventId`). A limit below
   * 1 (or NaN) purges nothing; a fractional one is floored. Returns how many went. A redelivery of
   * a purged event runs its handler again: keep rows longer than the broker keeps records.
   */
  purge(before: number, limit: number): Promise<number>;
}
