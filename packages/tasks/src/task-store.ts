import type { LineageQuery, OutboxEventDraft } from "@msgx/core";
import type { TaskCallbackEntry } from "./task-callback.js";
import type { TaskFeedbackEntry, TaskFeedbackKey } from "./task-feedback.js";
import type { TaskOverdueReason } from "./task-overdue.js";
import type { TaskHistoryEntry, TaskHistoryPage } from "./task-history.js";
import type { TaskRecord, TaskStatus } from "./task-record.js";
import type { TaskReplayEntry } from "./task-replay.js";

/**
 * One transaction of the task service. Everything written through it commits together or not at
 * all: a task's status change, its feedback log row and its outbox event are never split.
 */
export interface TaskTx {
  /**
   * The task, locked until this transaction ends: another transaction's `lockTask` of the same id
   * waits for it (so two feedbacks for one task are decided one after the other, each seeing the
   * other's commit). Undefined when there is no such task.
   */
  lockTask(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * The next number of `day` (`yyyyMMdd`) for a task number: 1 for a day's first, then one more
   * each time, never the same twice for one day, however many transactions ask at once (a second
   * one waits for the first to end). A rolled-back transaction may give its number back or leave
   * a gap.
   */
  nextTaskSeq(day: string): Promise<number>;
  /** Inserts a new task; returns false and writes nothing when the id is taken. A taken `taskNo` fails the transaction (`MsgxError`). */
  insertTask(task: TaskRecord): Promise<boolean>;
  /**
   * Replaces the stored task with `task`, which must be the stored one's successor
   * (`task.version === stored.version + 1`); otherwise throws `MsgxError("CONFLICT")` and the
   * transaction must not commit.
   */
  updateTask(task: TaskRecord): Promise<void>;
  /** The feedback log entry stored under `key`, if any. */
  findFeedback(key: TaskFeedbackKey): Promise<TaskFeedbackEntry | undefined>;
  /** Appends a feedback log entry; a second entry with the same key fails the transaction (`MsgxError`). */
  insertFeedback(entry: TaskFeedbackEntry): Promise<void>;
  /** Appends a callback log entry (repeats are logged too). */
  insertCallback(entry: TaskCallbackEntry): Promise<void>;
  /**
   * Appends outbox rows to the relay's outbox (the `MSG_EVENT` table the dispatchers drain),
   * PENDING, with EVENT_IDs ascending in the given order.
   */
  appendEvents(events: readonly OutboxEventDraft[]): Promise<void>;
  /**
   * Appends a history entry of a task written in this transaction (or before), or folds it into
   * the task's newest entry when `taskEntryCollapsesInto` says so (a run of watchdog alerts).
   * Commands call it through `saveTaskChange` / `saveNewTask`, never alone. A second entry for the same task and
   * version, or one of a task that is not stored, fails the transaction (`MsgxError`).
   */
  appendHistory(entry: TaskHistoryEntry): Promise<void>;
  /** Appends a replay audit row (`task_replay`); a taken replay id fails the transaction (`MsgxError`). */
  insertReplay(entry: TaskReplayEntry): Promise<void>;
}

/** How a task transaction is fenced. */
export interface TaskTransactionOptions {
  /** The leadership epoch this writer leads with; undefined = not fenced (no leadership in use). */
  readonly fence?: number;
}

/** Which tasks to list (all fields optional), ascending by taskId. */
export interface TaskFilter {
  readonly statuses?: readonly TaskStatus[];
  readonly ownerService?: string;
  readonly handlerCode?: string;
  /** Only these tasks. */
  readonly taskIds?: readonly string[];
  /** true: only tasks whose owner reported FAILURE (`callbackError` set); false: only those without. */
  readonly callbackFailed?: boolean;
  /** Only tasks last changed at or before this instant (e.g. "pending a callback for 10 min"). */
  readonly updatedBefore?: number;
  /** true: only tasks reported overdue and still DISPATCHED / EXECUTING (`isTaskOverdue`); false: only the others. */
  readonly overdue?: boolean;
  readonly afterTaskId?: string;
  readonly limit?: number;
}

/**
 * The task service's state (`task_task`, `task_feedback`, `task_callback`, and its rows in
 * `msg_event`), in PostgreSQL.
 *
 * Every implementation guarantees:
 * - `transaction` runs `fn` and commits all its writes atomically, or none when `fn` throws or
 *   the commit fails; a serialization failure or deadlock may be retried by running `fn` again
 *   (so `fn` must only write through `tx`). A lost connection during COMMIT throws
 *   `MsgxError("COMMIT_UNKNOWN")`: the caller repeats the request, which is idempotent.
 * - a transaction given a `fence` commits only while that is still the leadership epoch (the
 *   pipeline's, which a new leader moves on): otherwise it throws `MsgxError("FENCED")` and writes
 *   nothing. An epoch change and a fenced commit are ordered: the commit either precedes it (the
 *   new leader sees its writes) or is refused, so a deposed leader's transaction held across a
 *   takeover cannot undo what the new leader recorded.
 * - reads outside a transaction see committed data only;
 * - the feedback log is unique on `taskId + externalEventId + status`;
 * - driver errors leave as `MsgxError` (connection loss and timeouts as `DEPENDENCY_UNAVAILABLE`);
 * - the job probes (`dueForDispatch`, `stalePendingCallbacks`, `overdueCandidates`, `purgeFinished`) read an index of
 *   their own tasks only, never the whole table.
 */
export interface TaskStore {
  transaction<T>(fn: (tx: TaskTx) => Promise<T>, options?: TaskTransactionOptions): Promise<T>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** The task with that number (`T202607130001`), if any. */
  getByTaskNo(taskNo: string): Promise<TaskRecord | undefined>;
  list(filter: TaskFilter): Promise<readonly TaskRecord[]>;
  /** The feedback log of a task, oldest first. */
  feedback(taskId: string): Promise<readonly TaskFeedbackEntry[]>;
  /** The history of a task (its lineage), oldest first (ascending version); empty for an unknown task. */
  history(taskId: string): Promise<readonly TaskHistoryEntry[]>;
  /**
   * One page of a task's history, newest first (descending `version`): at most `query.limit`
   * entries below `query.beforeVersion` when given, and `next`, the `beforeVersion` of the page
   * after it (null on the last). Empty for an unknown task.
   */
  historyPage(taskId: string, query: LineageQuery): Promise<TaskHistoryPage>;
  /** The callback log of a task, oldest first. */
  callbacks(taskId: string): Promise<readonly TaskCallbackEntry[]>;
  /**
   * CREATED tasks waiting for the dispatch job whose `nextDispatchAt` is at or before `now`,
   * earliest due first (then by taskId), at most `limit`.
   */
  dueForDispatch(now: number, limit: number): Promise<readonly TaskRecord[]>;
  /**
   * Tasks in *_PENDING_CALLBACK last changed at or before `updatedBefore` whose last watchdog
   * alert is at or before `alertedBefore` (or never was), longest unchanged first, at most `limit`.
   */
  stalePendingCallbacks(updatedBefore: number, alertedBefore: number, limit: number): Promise<readonly TaskRecord[]>;
  /**
   * DISPATCHED / EXECUTING tasks with an overdue cause not yet reported at `now`: the deadline
   * (`deadlineAt`) at or before `now` and no `deadlineOverdueAt`, or the heartbeat
   * (`lastProgressAt + heartbeatMs`) at or before `now` and no `heartbeatOverdueAt` — exactly the
   * tasks `decideTaskOverdue` finds a reason for; at most `limit`, by taskId (the job marks each
   * one it takes, so the next call finds the rest).
   */
  overdueCandidates(now: number, limit: number): Promise<readonly TaskRecord[]>;
  /**
   * Deletes up to `limit` FINISHED / CANCELLED / FAILED tasks last changed before `before`
   * (strictly), oldest first, with their feedback and callback log rows and their history, in one transaction;
   * returns how many tasks went. A limit below 1 (or NaN) purges nothing; a fractional one is floored.
   * Replay audit rows stay.
   */
  purgeFinished(before: number, limit: number): Promise<number>;
  /** A replay audit row by its id. */
  replay(replayId: string): Promise<TaskReplayEntry | undefined>;
  /**
   * The tasks overdue now (`isTaskOverdue`: DISPATCHED / EXECUTING with a mark) per cause, both
   * present (0 when none; a task with both marks counts in both): the `msgx_tasks_overdue` gauge.
   */
  countOverdue(): Promise<Readonly<Record<TaskOverdueReason, number>>>;
  /** The number of stored tasks in each status, every status present (0 when none): the `msgx_tasks` gauge. */
  countByStatus(): Promise<Readonly<Record<TaskStatus, number>>>;
}
