import { MsgxError, newestFirstPage, type LineageQuery } from "@msgx/core";
import type { OutboxEventDraft } from "@msgx/core";
import type { Clock } from "@msgx/core";
import type { FaultPlan } from "@msgx/core/fakes";
import type { InMemoryPipelineStore } from "@msgx/core/fakes";
import type { TaskCallbackEntry } from "./task-callback.js";
import type { TaskFeedbackEntry, TaskFeedbackKey } from "./task-feedback.js";
import { collapsedTaskEntry, taskEntryCollapsesInto, type TaskHistoryEntry, type TaskHistoryPage } from "./task-history.js";
import { FINAL_TASK_STATUSES, PENDING_CALLBACK_STATUSES, TaskStatus, type TaskRecord } from "./task-record.js";
import { decideTaskOverdue, isTaskOverdue, type TaskOverdueReason } from "./task-overdue.js";
import type { TaskReplayEntry } from "./task-replay.js";
import type { TaskFilter, TaskStore, TaskTransactionOptions, TaskTx } from "./task-store.js";

/** The fake's tables, public so tests can look inside. */
export interface InMemoryTaskTables {
  readonly tasks: Map<string, TaskRecord>;
  /** In log order. */
  readonly feedback: TaskFeedbackEntry[];
  readonly callbacks: TaskCallbackEntry[];
  readonly replays: TaskReplayEntry[];
  /** Every task's history, in write order. */
  readonly history: TaskHistoryEntry[];
  /** The last task number given out per day (`yyyyMMdd`). */
  readonly taskSeqs: Map<string, number>;
}

const byId = (a: TaskRecord, b: TaskRecord): number => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);
const keyOf = (k: TaskFeedbackKey): string => JSON.stringify([k.taskId, k.externalEventId, k.status]);

/**
 * The in-memory `TaskStore`. Its outbox rows go to `pipeline.tables.events` — the table
 * `InMemoryOutboxStore` and the dispatchers read — and it shares the pipeline store's `faults`,
 * so one `setDown(true)` takes the whole database away. Transactions run one at a time; writes
 * are staged and applied at commit; a fenced one commits only while its fence is the pipeline
 * store's `epoch`. Fault hooks: `faults` (operations `task.<member>` and
 * `task.commit`), `commitUnknownNext` (commit, then report the outcome unknown).
 */
export class InMemoryTaskStore implements TaskStore {
  readonly tables: InMemoryTaskTables = { tasks: new Map(), feedback: [], callbacks: [], replays: [], history: [], taskSeqs: new Map() };
  /** When set, the next commit applies its writes and then throws `COMMIT_UNKNOWN`. */
  commitUnknownNext = false;
  readonly #clock: Clock;
  readonly #pipeline: InMemoryPipelineStore;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(clock: Clock, pipeline: InMemoryPipelineStore) {
    this.#clock = clock;
    this.#pipeline = pipeline;
  }

  get faults(): FaultPlan {
    return this.#pipeline.faults;
  }

  transaction<T>(fn: (tx: TaskTx) => Promise<T>, options: TaskTransactionOptions = {}): Promise<T> {
    const run = this.#tail.then(() => this.#run(fn, options));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #run<T>(fn: (tx: TaskTx) => Promise<T>, options: TaskTransactionOptions): Promise<T> {
    this.#check("transaction");
    const t = this.tables;
    const tasks = new Map<string, TaskRecord>();
    const feedback: TaskFeedbackEntry[] = [];
    const callbacks: TaskCallbackEntry[] = [];
    const events: OutboxEventDraft[] = [];
    const replays: TaskReplayEntry[] = [];
    const history: TaskHistoryEntry[] = [];
    // The newest entries a watchdog alert folded into: replaced by the folded entry at the commit.
    const folded = new Set<TaskHistoryEntry>();
    const seqs = new Map<string, number>();
    const current = (id: string): TaskRecord | undefined => tasks.get(id) ?? t.tasks.get(id);
    const tx: TaskTx = {
      lockTask: async (taskId) => {
        this.#check("lockTask");
        return current(taskId);
      },
      nextTaskSeq: async (day) => {
        this.#check("nextTaskSeq");
        const seq = (seqs.get(day) ?? t.taskSeqs.get(day) ?? 0) + 1;
        seqs.set(day, seq);
        return seq;
      },
      insertTask: async (task) => {
        this.#check("insertTask");
        if (current(task.taskId) !== undefined) return false;
        if ([...t.tasks.values(), ...tasks.values()].some((x) => x.taskNo === task.taskNo)) {
          throw new MsgxError("INFRA", `unique violation: task number ${task.taskNo} is taken`);
        }
        tasks.set(task.taskId, task);
        return true;
      },
      updateTask: async (task) => {
        this.#check("updateTask");
        const stored = current(task.taskId);
        if (stored === undefined || task.version !== stored.version + 1) {
          throw new MsgxError("CONFLICT", `task ${task.taskId}: version ${task.version} does not follow ${stored?.version ?? "nothing"}`);
        }
        tasks.set(task.taskId, task);
      },
      findFeedback: async (key) => {
        this.#check("findFeedback");
        const k = keyOf(key);
        return [...t.feedback, ...feedback].find((e) => keyOf(e) === k);
      },
      insertFeedback: async (entry) => {
        this.#check("insertFeedback");
        const k = keyOf(entry);
        if ([...t.feedback, ...feedback].some((e) => keyOf(e) === k)) {
          throw new MsgxError("INFRA", `unique violation: feedback ${k} is logged already`);
        }
        feedback.push(entry);
      },
      insertCallback: async (entry) => {
        this.#check("insertCallback");
        callbacks.push(entry);
      },
      appendEvents: async (drafts) => {
        this.#check("appendEvents");
        events.push(...drafts);
      },
      appendHistory: async (entry) => {
        this.#check("appendHistory");
        const stored = current(entry.taskId);
        // The row's foreign key and primary key: a task's entry, once per version.
        if (stored === undefined) throw new MsgxError("INFRA", `foreign key violation: no task ${entry.taskId} for its history`);
        if ([...t.history, ...history].some((h) => h.taskId === entry.taskId && h.version === entry.version)) {
          throw new MsgxError("INFRA", `unique violation: history of task ${entry.taskId} version ${entry.version} is written already`);
        }
        const last = [...t.history, ...history].filter((h) => h.taskId === entry.taskId && !folded.has(h)).sort((a, b) => a.version - b.version).at(-1);
        if (taskEntryCollapsesInto(last, entry)) {
          folded.add(last);
          history.push(collapsedTaskEntry(last, entry));
        } else history.push(entry);
      },
      insertReplay: async (entry) => {
        this.#check("insertReplay");
        if ([...t.replays, ...replays].some((r) => r.replayId === entry.replayId)) {
          throw new MsgxError("INFRA", `unique violation: replay ${entry.replayId} is logged already`);
        }
        replays.push(entry);
      },
    };
    const result = await fn(tx);
    // The epoch is the pipeline's; its fake moves it on between transactions, as the lease does under the pipeline lock.
    const epoch = this.#pipeline.tables.epoch;
    if (options.fence !== undefined && options.fence !== epoch) throw new MsgxError("FENCED", `fence ${options.fence} is stale (epoch ${epoch})`);
    this.#check("commit");
    for (const [id, task] of tasks) t.tasks.set(id, task);
    t.feedback.push(...feedback);
    t.callbacks.push(...callbacks);
    t.replays.push(...replays);
    t.history.splice(0, t.history.length, ...t.history.filter((h) => !folded.has(h)), ...history.filter((h) => !folded.has(h)));
    for (const [day, seq] of seqs) t.taskSeqs.set(day, seq);
    this.#appendOutbox(events);
    if (this.commitUnknownNext) {
      this.commitUnknownNext = false;
      throw new MsgxError("COMMIT_UNKNOWN", "connection lost during COMMIT (simulated; it did commit)");
    }
    return result;
  }

  #appendOutbox(drafts: readonly OutboxEventDraft[]): void {
    const now = this.#clock.now();
    for (const e of drafts) this.#pipeline.insertEvent(e, now);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    this.#check("get");
    return this.tables.tasks.get(taskId);
  }

  async getByTaskNo(taskNo: string): Promise<TaskRecord | undefined> {
    this.#check("getByTaskNo");
    return [...this.tables.tasks.values()].find((t) => t.taskNo === taskNo);
  }

  async list(filter: TaskFilter): Promise<readonly TaskRecord[]> {
    this.#check("list");
    return [...this.tables.tasks.values()]
      .filter(
        (task) =>
          (filter.statuses === undefined || filter.statuses.includes(task.status)) &&
          (filter.ownerService === undefined || task.ownerService === filter.ownerService) &&
          (filter.handlerCode === undefined || task.handlerCode === filter.handlerCode) &&
          (filter.taskIds === undefined || filter.taskIds.includes(task.taskId)) &&
          (filter.callbackFailed === undefined || (task.callbackError !== null) === filter.callbackFailed) &&
          (filter.updatedBefore === undefined || task.updatedAt <= filter.updatedBefore) &&
          (filter.overdue === undefined || isTaskOverdue(task) === filter.overdue) &&
          (filter.afterTaskId === undefined || task.taskId > filter.afterTaskId),
      )
      .sort(byId)
      .slice(0, filter.limit ?? Number.POSITIVE_INFINITY);
  }

  async feedback(taskId: string): Promise<readonly TaskFeedbackEntry[]> {
    this.#check("feedback");
    return this.tables.feedback.filter((e) => e.taskId === taskId);
  }

  async historyPage(taskId: string, query: LineageQuery): Promise<TaskHistoryPage> {
    this.#check("history");
    const below = (await this.history(taskId)).filter((h) => query.beforeVersion === undefined || h.version < query.beforeVersion);
    return newestFirstPage("entries", [...below].reverse().slice(0, query.limit + 1), query.limit);
  }

  async history(taskId: string): Promise<readonly TaskHistoryEntry[]> {
    this.#check("history");
    return this.tables.history.filter((e) => e.taskId === taskId).sort((a, b) => a.version - b.version);
  }

  async callbacks(taskId: string): Promise<readonly TaskCallbackEntry[]> {
    this.#check("callbacks");
    return this.tables.callbacks.filter((e) => e.taskId === taskId);
  }

  async dueForDispatch(now: number, limit: number): Promise<readonly TaskRecord[]> {
    this.#check("dueForDispatch");
    return [...this.tables.tasks.values()]
      .filter((t) => t.status === TaskStatus.CREATED && t.nextDispatchAt !== null && t.nextDispatchAt <= now)
      .sort((a, b) => a.nextDispatchAt! - b.nextDispatchAt! || byId(a, b))
      .slice(0, Math.max(0, limit));
  }

  async stalePendingCallbacks(updatedBefore: number, alertedBefore: number, limit: number): Promise<readonly TaskRecord[]> {
    this.#check("stalePendingCallbacks");
    return [...this.tables.tasks.values()]
      .filter(
        (t) =>
          PENDING_CALLBACK_STATUSES.includes(t.status) &&
          t.updatedAt <= updatedBefore &&
          (t.callbackAlertAt === null || t.callbackAlertAt <= alertedBefore),
      )
      .sort((a, b) => a.updatedAt - b.updatedAt || byId(a, b))
      .slice(0, Math.max(0, limit));
  }

  async overdueCandidates(now: number, limit: number): Promise<readonly TaskRecord[]> {
    this.#check("overdueCandidates");
    return [...this.tables.tasks.values()]
      .filter((t) => decideTaskOverdue(t, now).length > 0)
      .sort(byId)
      .slice(0, Math.max(0, limit));
  }

  async purgeFinished(before: number, limit: number): Promise<number> {
    this.#check("purgeFinished");
    const n = Number.isNaN(limit) ? 0 : Math.floor(limit);
    if (n < 1) return 0;
    const t = this.tables;
    const gone = [...t.tasks.values()]
      .filter((task) => FINAL_TASK_STATUSES.includes(task.status) && task.updatedAt < before)
      .sort((a, b) => a.updatedAt - b.updatedAt || byId(a, b))
      .slice(0, n)
      .map((task) => task.taskId);
    const ids = new Set(gone);
    for (const id of gone) t.tasks.delete(id);
    t.feedback.splice(0, t.feedback.length, ...t.feedback.filter((e) => !ids.has(e.taskId)));
    t.callbacks.splice(0, t.callbacks.length, ...t.callbacks.filter((e) => !ids.has(e.taskId)));
    t.history.splice(0, t.history.length, ...t.history.filter((e) => !ids.has(e.taskId)));
    return gone.length;
  }

  async replay(replayId: string): Promise<TaskReplayEntry | undefined> {
    this.#check("replay");
    return this.tables.replays.find((r) => r.replayId === replayId);
  }

  async countOverdue(): Promise<Readonly<Record<TaskOverdueReason, number>>> {
    this.#check("countOverdue");
    const overdue = [...this.tables.tasks.values()].filter(isTaskOverdue);
    return { DEADLINE: overdue.filter((t) => t.deadlineOverdueAt !== null).length, HEARTBEAT: overdue.filter((t) => t.heartbeatOverdueAt !== null).length };
  }

  async countByStatus(): Promise<Readonly<Record<TaskStatus, number>>> {
    this.#check("countByStatus");
    const counts = Object.fromEntries(Object.values(TaskStatus).map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const task of this.tables.tasks.values()) counts[task.status] += 1;
    return counts;
  }

  #check(operation: string): void {
    this.faults.check(`task.${operation}`);
  }
}
