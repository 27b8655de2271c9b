import { systemClock, type Clock, type LineageQuery, type OutboxEventDraft } from "@msgx/core";
import { TASK_STATUSES, type TaskCallbackEntry, type TaskFeedbackEntry, type TaskFeedbackKey, type TaskFilter, type TaskHistoryEntry, type TaskHistoryPage, type TaskOverdueReason, type TaskRecord, type TaskReplayEntry, type TaskStatus, type TaskStore, type TaskTransactionOptions, type TaskTx } from "@msgx/tasks";
import type { Kysely } from "kysely";
import { pgCall } from "../pg-error-map.js";
import { pgTransaction } from "../pg-transaction.js";
import { insertEvents } from "../queries/msg-event.js";
import { holdFence } from "../queries/pipeline-epoch.js";
import { countOverdueTasks, countTasksByStatus, dueForDispatch, findFeedback, getReplay, getTask, getTaskByNo, insertCallback, insertFeedback, insertReplay, insertTask, listCallbacks, listFeedback, listTasks, lockTask, nextTaskSeq, overdueCandidates, purgeFinishedTasks, stalePendingCallbacks, updateTask } from "./task-queries.js";
import { insertTaskHistory, taskHistory, taskHistoryPage } from "./task-history-queries.js";
import type { MsgxDatabase } from "../rows/tables.js";

export interface PgTaskStoreOptions {
  /** Time for the outbox rows' `created_at`. Default: the system clock. */
  readonly clock?: Clock;
}

/**
 * `TaskStore` on PostgreSQL (or PGlite) through kysely: `task_task`, `task_feedback`,
 * `task_callback` (migration `taskRoutingMigration`) and the relay's `msg_event`, written with
 * the pipeline's own `insertEvents` so the dispatchers read task events like any other.
 * Tables are unqualified: put the schema on the connections' search path (`pgPoolConfig` does).
 *
 * A transaction is one `BEGIN … COMMIT` on one pooled connection at READ COMMITTED; `lockTask`
 * is `SELECT … FOR UPDATE`, which is what serializes two reports for one task. A fenced
 * transaction checks the leadership epoch last, holding its row until COMMIT (`holdFence`). Driver errors
 * leave as `MsgxError` (`mapPgError`); a connection lost during COMMIT as `COMMIT_UNKNOWN`.
 */
export class PgTaskStore implements TaskStore {
  readonly #db: Kysely<MsgxDatabase>;
  readonly #clock: Clock;

  constructor(db: Kysely<MsgxDatabase>, options: PgTaskStoreOptions = {}) {
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
  }

  async transaction<T>(fn: (tx: TaskTx) => Promise<T>, options: TaskTransactionOptions = {}): Promise<T> {
    const { fence } = options;
    return pgTransaction(this.#db, "task", async (trx) => {
      const result = await fn(new PgTaskTx(trx, this.#clock.now()));
      if (fence !== undefined) await pgCall("task fence", () => holdFence(trx, fence));
      return result;
    });
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return pgCall("task get", () => getTask(this.#db, taskId));
  }

  getByTaskNo(taskNo: string): Promise<TaskRecord | undefined> {
    return pgCall("task get by number", () => getTaskByNo(this.#db, taskNo));
  }

  list(filter: TaskFilter): Promise<readonly TaskRecord[]> {
    return pgCall("task list", () => listTasks(this.#db, filter));
  }

  feedback(taskId: string): Promise<readonly TaskFeedbackEntry[]> {
    return pgCall("task feedback", () => listFeedback(this.#db, taskId));
  }

  history(taskId: string): Promise<readonly TaskHistoryEntry[]> {
    return pgCall("task history", () => taskHistory(this.#db, taskId));
  }

  historyPage(taskId: string, query: LineageQuery): Promise<TaskHistoryPage> {
    return pgCall("task history", () => taskHistoryPage(this.#db, taskId, query));
  }

  callbacks(taskId: string): Promise<readonly TaskCallbackEntry[]> {
    return pgCall("task callbacks", () => listCallbacks(this.#db, taskId));
  }

  dueForDispatch(now: number, limit: number): Promise<readonly TaskRecord[]> {
    return pgCall("task due for dispatch", () => dueForDispatch(this.#db, now, limit));
  }

  stalePendingCallbacks(updatedBefore: number, alertedBefore: number, limit: number): Promise<readonly TaskRecord[]> {
    return pgCall("task stale pending callbacks", () => stalePendingCallbacks(this.#db, updatedBefore, alertedBefore, limit));
  }

  countOverdue(): Promise<Readonly<Record<TaskOverdueReason, number>>> {
    return pgCall("task overdue count", () => countOverdueTasks(this.#db));
  }

  overdueCandidates(now: number, limit: number): Promise<readonly TaskRecord[]> {
    return pgCall("task overdue candidates", () => overdueCandidates(this.#db, now, limit));
  }

  async purgeFinished(before: number, limit: number): Promise<number> {
    const n = Number.isNaN(limit) ? 0 : Math.floor(limit);
    if (n < 1) return 0;
    return pgTransaction(this.#db, "task purge", (trx) => pgCall("task purge", () => purgeFinishedTasks(trx, before, n)));
  }

  replay(replayId: string): Promise<TaskReplayEntry | undefined> {
    return pgCall("task replay get", () => getReplay(this.#db, replayId));
  }

  async countByStatus(): Promise<Readonly<Record<TaskStatus, number>>> {
    const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const r of await pgCall("task count", () => countTasksByStatus(this.#db))) counts[r.status as TaskStatus] = r.n;
    return counts;
  }
}

/** One task transaction on one connection; each member is one statement. */
class PgTaskTx implements TaskTx {
  readonly #trx: Kysely<MsgxDatabase>;
  readonly #now: number;

  constructor(trx: Kysely<MsgxDatabase>, now: number) {
    this.#trx = trx;
    this.#now = now;
  }

  lockTask(taskId: string): Promise<TaskRecord | undefined> {
    return pgCall("task lock", () => lockTask(this.#trx, taskId));
  }

  nextTaskSeq(day: string): Promise<number> {
    return pgCall("task number", () => nextTaskSeq(this.#trx, day));
  }

  insertTask(task: TaskRecord): Promise<boolean> {
    return pgCall("task insert", () => insertTask(this.#trx, task));
  }

  updateTask(task: TaskRecord): Promise<void> {
    return pgCall("task update", () => updateTask(this.#trx, task));
  }

  findFeedback(key: TaskFeedbackKey): Promise<TaskFeedbackEntry | undefined> {
    return pgCall("task feedback find", () => findFeedback(this.#trx, key));
  }

  insertFeedback(entry: TaskFeedbackEntry): Promise<void> {
    return pgCall("task feedback insert", () => insertFeedback(this.#trx, entry));
  }

  insertCallback(entry: TaskCallbackEntry): Promise<void> {
    return pgCall("task callback insert", () => insertCallback(this.#trx, entry));
  }

  appendHistory(entry: TaskHistoryEntry): Promise<void> {
    return pgCall("task history insert", () => insertTaskHistory(this.#trx, entry));
  }

  insertReplay(entry: TaskReplayEntry): Promise<void> {
    return pgCall("task replay insert", () => insertReplay(this.#trx, entry));
  }

  async appendEvents(events: readonly OutboxEventDraft[]): Promise<void> {
    await pgCall("task events insert", () => insertEvents(this.#trx, events, this.#now));
  }
}

