import { MsgxError } from "@msgx/core";
import { FaultPlan } from "@msgx/core/fakes";
import { TaskCallbackStatus, TaskConsumeStatus, isTaskEventSettled, type TaskConsumeLogEntry, type TaskConsumeLogWrite } from "./task-consume-log.js";
import type { TaskConsumeLogFilter, TaskConsumeLogStore, TaskConsumeTx } from "./task-consume-log-store.js";

/** The fake's transaction handle: business writes are staged and applied at commit with the log row. */
export interface InMemoryTaskTxHandle {
  stage(write: () => void): void;
}

const byId = (a: TaskConsumeLogEntry, b: TaskConsumeLogEntry): number => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

function rowOf(write: TaskConsumeLogWrite, before: TaskConsumeLogEntry | undefined): TaskConsumeLogEntry {
  const wantsCallback = write.callback && write.status !== TaskConsumeStatus.FAILED;
  return {
    eventId: write.eventId,
    taskId: write.taskId,
    ownerService: write.ownerService,
    handlerCode: write.handlerCode,
    eventType: write.eventType,
    status: write.status,
    errorMsg: write.errorMsg,
    attempts: write.attempts,
    nextAttemptAt: write.nextAttemptAt,
    payload: write.payload,
    deliveryEventId: write.deliveryEventId,
    callbackStatus: wantsCallback ? TaskCallbackStatus.PENDING : null,
    callbackAttempts: 0,
    callbackNextAt: wantsCallback ? write.at : null,
    callbackError: null,
    createdAt: before?.createdAt ?? write.at,
    updatedAt: write.at,
  };
}

/**
 * The in-memory `TaskConsumeLogStore`: a map of rows, one transaction at a time, the handler's staged
 * writes and the log row applied together at commit. Fault hooks: `faults` (operations
 * `consume.<member>` and `consume.commit`; `setDown` for an outage of the owner's database),
 * `commitUnknownNext` (commit, then report the outcome unknown).
 */
export class InMemoryTaskConsumeLogStore implements TaskConsumeLogStore<InMemoryTaskTxHandle> {
  readonly faults = new FaultPlan("consume-log");
  readonly rows = new Map<string, TaskConsumeLogEntry>();
  commitUnknownNext = false;
  #tail: Promise<unknown> = Promise.resolve();

  transaction<T>(fn: (tx: TaskConsumeTx<InMemoryTaskTxHandle>) => Promise<T>): Promise<T> {
    const run = this.#tail.then(() => this.#run(fn));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #run<T>(fn: (tx: TaskConsumeTx<InMemoryTaskTxHandle>) => Promise<T>): Promise<T> {
    this.#check("transaction");
    const staged: (() => void)[] = [];
    const tx: TaskConsumeTx<InMemoryTaskTxHandle> = {
      handle: { stage: (write) => void staged.push(write) },
      claim: async (eventId) => {
        this.#check("claim");
        return this.rows.get(eventId);
      },
      succeed: async (write) => {
        this.#check("succeed");
        if (write.status !== TaskConsumeStatus.SUCCEEDED) throw new TypeError(`succeed writes SUCCEEDED rows, not ${write.status}`);
        const before = this.rows.get(write.eventId);
        if (before !== undefined && isTaskEventSettled(before)) throw new MsgxError("INFRA", `consume log ${write.eventId} is already ${before.status}`);
        staged.push(() => this.rows.set(write.eventId, rowOf(write, before)));
      },
    };
    const result = await fn(tx);
    this.#check("commit");
    for (const write of staged) write();
    if (this.commitUnknownNext) {
      this.commitUnknownNext = false;
      throw new MsgxError("COMMIT_UNKNOWN", "connection lost during COMMIT (simulated; it did commit)");
    }
    return result;
  }

  async get(eventId: string): Promise<TaskConsumeLogEntry | undefined> {
    this.#check("get");
    return this.rows.get(eventId);
  }

  async recordFailure(write: TaskConsumeLogWrite): Promise<TaskConsumeLogEntry> {
    this.#check("recordFailure");
    if (write.status === TaskConsumeStatus.SUCCEEDED) throw new TypeError("recordFailure writes FAILED or DEAD rows");
    const before = this.rows.get(write.eventId);
    if (before !== undefined && isTaskEventSettled(before)) return before;
    const row = rowOf(write, before);
    this.rows.set(write.eventId, row);
    return row;
  }

  async dueCallbacks(now: number, limit: number): Promise<readonly TaskConsumeLogEntry[]> {
    this.#check("dueCallbacks");
    return [...this.rows.values()]
      .filter((r) => r.callbackStatus === TaskCallbackStatus.PENDING && (r.callbackNextAt ?? 0) <= now)
      .sort((a, b) => (a.callbackNextAt ?? 0) - (b.callbackNextAt ?? 0) || byId(a, b))
      .slice(0, limit);
  }

  async settleCallback(eventId: string, status: "SENT" | "REJECTED", error: string | null, at: number): Promise<void> {
    this.#check("settleCallback");
    this.#updatePending(eventId, (r) => ({ ...r, callbackStatus: status, callbackNextAt: null, callbackError: error, updatedAt: at }));
  }

  async deferCallback(eventId: string, attempts: number, nextAt: number, error: string): Promise<void> {
    this.#check("deferCallback");
    this.#updatePending(eventId, (r) => ({ ...r, callbackAttempts: attempts, callbackNextAt: nextAt, callbackError: error }));
  }

  async list(filter: TaskConsumeLogFilter): Promise<readonly TaskConsumeLogEntry[]> {
    this.#check("list");
    return [...this.rows.values()]
      .filter(
        (r) =>
          (filter.statuses === undefined || filter.statuses.includes(r.status)) &&
          (filter.callbackStatuses === undefined || (r.callbackStatus !== null && filter.callbackStatuses.includes(r.callbackStatus))) &&
          (filter.taskId === undefined || r.taskId === filter.taskId),
      )
      .sort(byId)
      .slice(0, filter.limit ?? Number.POSITIVE_INFINITY);
  }

  async reopenDead(eventId: string, note: string, deliveryEventId: string | null, at: number): Promise<TaskConsumeLogEntry | undefined> {
    this.#check("reopenDead");
    const row = this.rows.get(eventId);
    if (row === undefined || row.status !== TaskConsumeStatus.DEAD) return row;
    const reopened: TaskConsumeLogEntry = {
      ...row,
      status: TaskConsumeStatus.FAILED,
      errorMsg: note,
      attempts: 0,
      nextAttemptAt: at,
      deliveryEventId,
      callbackStatus: null,
      callbackAttempts: 0,
      callbackNextAt: null,
      callbackError: null,
      updatedAt: at,
    };
    this.rows.set(eventId, reopened);
    return reopened;
  }

  async reopenCallback(eventId: string, at: number): Promise<boolean> {
    this.#check("reopenCallback");
    const row = this.rows.get(eventId);
    if (row === undefined || row.callbackStatus !== TaskCallbackStatus.SENT) return false;
    this.rows.set(eventId, { ...row, callbackStatus: TaskCallbackStatus.PENDING, callbackNextAt: at, callbackError: null, updatedAt: at });
    return true;
  }

  async purge(before: number, limit: number): Promise<number> {
    this.#check("purge");
    const n = Math.floor(limit);
    if (!(n >= 1)) return 0;
    const doomed = [...this.rows.values()]
      .filter((r) => r.status === TaskConsumeStatus.SUCCEEDED && (r.callbackStatus === null || r.callbackStatus === TaskCallbackStatus.SENT) && r.updatedAt < before)
      .sort((a, b) => a.updatedAt - b.updatedAt || byId(a, b))
      .slice(0, n);
    for (const r of doomed) this.rows.delete(r.eventId);
    return doomed.length;
  }

  #updatePending(eventId: string, change: (r: TaskConsumeLogEntry) => TaskConsumeLogEntry): void {
    const row = this.rows.get(eventId);
    if (row !== undefined && row.callbackStatus === TaskCallbackStatus.PENDING) this.rows.set(eventId, change(row));
  }

  #check(operation: string): void {
    this.faults.check(`consume.${operation}`);
  }
}
