import { saveTaskChange } from "./save-task-change.js";
import { isMsgxError } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import type { DispatchAnswer, TaskDispatcher } from "./task-dispatcher.js";
import { evolveTask, type TaskTransition } from "./task-machine.js";
import { TaskStatus, type TaskRecord } from "./task-record.js";
import type { TaskStore } from "./task-store.js";
import { exponentialBackoff } from "@msgx/core";

/** The backoff of failed dispatches: `initialBackoffMs` doubling per failure up to `maxBackoffMs`, never giving up. */
export interface DispatchRetryOptions {
  /** Default 1 s. */
  readonly initialBackoffMs: number;
  /** Default 60 s. */
  readonly maxBackoffMs: number;
}

export const DEFAULT_DISPATCH_RETRY: DispatchRetryOptions = { initialBackoffMs: 1_000, maxBackoffMs: 60_000 };

/** The wait after failed dispatch number `failures` (1-based). */
export function dispatchBackoffMs(failures: number, retry: DispatchRetryOptions = DEFAULT_DISPATCH_RETRY): number {
  return exponentialBackoff({ initialMs: retry.initialBackoffMs, maxMs: retry.maxBackoffMs }, failures);
}

/**
 * Pure: what an answer does to a CREATED task waiting for its dispatch; null when the task no
 * longer waits (it was cancelled, reported on or dispatched by hand while the call ran).
 */
export function decideDispatchAnswer(task: TaskRecord, answer: DispatchAnswer, now: number, retry: DispatchRetryOptions = DEFAULT_DISPATCH_RETRY): TaskTransition | null {
  if (task.status !== TaskStatus.CREATED || task.nextDispatchAt === null) return null;
  switch (answer.kind) {
    case "accepted":
      return { type: "dispatched", externalTaskNo: answer.externalTaskNo, attempted: true };
    case "refused":
      return { type: "dispatchRefused", reason: answer.reason };
    case "failed":
      return { type: "dispatchFailed", error: answer.reason, nextDispatchAt: now + dispatchBackoffMs(task.dispatchAttempts + 1, retry) };
  }
}

/** What one `step` did. */
export interface TaskDispatchStep {
  readonly examined: number;
  /** Accepted by the external system: DISPATCHED. */
  readonly dispatched: number;
  /** Refused for good: FAILED. */
  readonly refused: number;
  /** Failed for now: an attempt spent, due again after the backoff. */
  readonly failed: number;
  /** Moved on while the call ran (cancelled, reported on, dispatched by hand); nothing recorded. */
  readonly skipped: number;
  /** Accepted although cancelled meanwhile: cancelled in the external system again. */
  readonly raceCancels: number;
  /** True when the external system was unreachable: the batch stopped, no attempt spent. */
  readonly outage: boolean;
  /** True when the batch was full and did work: call again at once. */
  readonly more: boolean;
}

export interface DispatchJobDeps {
  readonly store: TaskStore;
  readonly dispatcher: TaskDispatcher;
  readonly clock: Clock;
  readonly logger?: Logger;
}

export interface DispatchJobOptions {
  /** Tasks per step. Default 20. */
  readonly batchSize?: number;
  readonly retry?: Partial<DispatchRetryOptions>;
}

/**
 * The dispatch job (seed 001 `AcsTaskDispatcher`): sends every CREATED task whose `nextDispatchAt`
 * is due to the external system, one call at a time, outside any transaction, then records the
 * answer in one transaction under the task's lock: accepted -> DISPATCHED with its
 * `externalTaskNo`; refused -> FAILED with the reason; failed -> one attempt more, due again after
 * the backoff (1 s doubling to 60 s, no limit). An unreachable external system
 * (`DEPENDENCY_UNAVAILABLE`) stops the batch and spends nothing: the task is due as it was.
 * A call repeated after a lost answer is safe: the dispatcher's idempotency key is the task id.
 * If the task was cancelled while its dispatch ran and the external system accepted it, the job
 * cancels it there (logged). `step` does one batch and never sleeps.
 */
export class DispatchJob {
  readonly #deps: DispatchJobDeps;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #retry: DispatchRetryOptions;
  readonly #totals = { dispatched: 0, refused: 0, failed: 0, outages: 0 };

  constructor(deps: DispatchJobDeps, options: DispatchJobOptions = {}) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
    this.#batchSize = options.batchSize ?? 20;
    this.#retry = { ...DEFAULT_DISPATCH_RETRY, ...Object.fromEntries(Object.entries(options.retry ?? {}).filter(([, v]) => v !== undefined)) };
    if (!Number.isSafeInteger(this.#batchSize) || this.#batchSize < 1) throw new RangeError(`batchSize must be a positive integer: ${this.#batchSize}`);
    const { initialBackoffMs, maxBackoffMs } = this.#retry;
    if (!(initialBackoffMs > 0) || !(maxBackoffMs >= initialBackoffMs)) {
      throw new RangeError(`dispatch retry needs 0 < initialBackoffMs <= maxBackoffMs: ${initialBackoffMs}, ${maxBackoffMs}`);
    }
  }

  /** Outcomes since the job was built (for metrics: `msgx_task_dispatch_total{outcome}`). */
  get totals(): Readonly<{ dispatched: number; refused: number; failed: number; outages: number }> {
    return { ...this.#totals };
  }

  async step(signal?: AbortSignal): Promise<TaskDispatchStep> {
    const { store, dispatcher, clock } = this.#deps;
    const due = await store.dueForDispatch(clock.now(), this.#batchSize);
    const counts = { examined: 0, dispatched: 0, refused: 0, failed: 0, skipped: 0, raceCancels: 0 };
    let outage = false;
    for (const task of due) {
      signal?.throwIfAborted();
      counts.examined += 1;
      let answer: DispatchAnswer;
      try {
        answer = await dispatcher.dispatch(task, signal);
      } catch (e) {
        if (isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE") {
          outage = true;
          this.#totals.outages += 1;
          this.#logger.warn("task dispatch: the external system is unreachable; no attempt spent", { taskId: task.taskId, error: e.message });
          break;
        }
        throw e;
      }
      const recorded = await this.#record(task.taskId, answer);
      if (recorded === null) {
        counts.skipped += 1;
        if (answer.kind === "accepted") counts.raceCancels += await this.#cancelIfCancelled(task.taskId, answer.externalTaskNo, signal);
        continue;
      }
      if (answer.kind === "accepted") {
        counts.dispatched += 1;
        this.#totals.dispatched += 1;
        this.#logger.info("task dispatched", { taskId: task.taskId, externalTaskNo: answer.externalTaskNo, attempt: recorded.dispatchAttempts });
      } else if (answer.kind === "refused") {
        counts.refused += 1;
        this.#totals.refused += 1;
        this.#logger.error("task dispatch refused: task FAILED", { taskId: task.taskId, owner: task.ownerService, reason: answer.reason });
      } else {
        counts.failed += 1;
        this.#totals.failed += 1;
        this.#logger.warn("task dispatch failed; retrying after backoff", {
          taskId: task.taskId,
          attempt: recorded.dispatchAttempts,
          nextDispatchAt: recorded.nextDispatchAt,
          reason: answer.reason,
        });
      }
    }
    return { ...counts, outage, more: !outage && due.length === this.#batchSize && counts.skipped < counts.examined };
  }

  /** Records the answer under the task's lock; null when the task no longer waited for it. */
  async #record(taskId: string, answer: DispatchAnswer): Promise<TaskRecord | null> {
    const now = this.#deps.clock.now();
    return this.#deps.store.transaction(async (tx) => {
      const task = await tx.lockTask(taskId);
      if (task === undefined) return null;
      const transition = decideDispatchAnswer(task, answer, now, this.#retry);
      if (transition === null) return null;
      const next = evolveTask(task, transition, now);
      await saveTaskChange(tx, task, next, { kind: "dispatch", answer: transition.type === "dispatched" ? "accepted" : transition.type === "dispatchRefused" ? "refused" : "failed" }, null);
      return next;
    });
  }

  /** The race with a cancel: the external system accepted a task we cancelled meanwhile. */
  async #cancelIfCancelled(taskId: string, externalTaskNo: string, signal: AbortSignal | undefined): Promise<number> {
    const task = await this.#deps.store.get(taskId);
    if (task === undefined || (task.status !== TaskStatus.CANCEL_PENDING_CALLBACK && task.status !== TaskStatus.CANCELLED)) return 0;
    const reason = task.statusReason ?? "cancelled while its dispatch ran";
    try {
      const answer = await this.#deps.dispatcher.cancel({ ...task, externalTaskNo: task.externalTaskNo ?? externalTaskNo }, reason, signal);
      this.#logger.warn("task accepted by the external system after it was cancelled: cancelled it there", { taskId, externalTaskNo, answer: answer.kind });
    } catch (e) {
      if (!isMsgxError(e)) throw e;
      this.#logger.error("task accepted by the external system after it was cancelled, and its cancel there failed", { taskId, externalTaskNo, error: e.message });
    }
    return 1;
  }
}
