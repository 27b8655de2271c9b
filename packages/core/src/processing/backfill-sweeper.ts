import { errorMessage, isMsgxError } from "../errors/msgx-error.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { Mailbox } from "../ports/mailbox.js";
import type { BackfillTodo, PipelineStore } from "./pipeline-store.js";
import { exponentialBackoff } from "../runtime/exponential-backoff.js";

export interface BackfillSweepOptions {
  readonly batchSize: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

/** Seed 000 §6.1: every 30 s, backoff 30 s doubling to 15 min. */
export const DEFAULT_BACKFILL_SWEEP_OPTIONS: BackfillSweepOptions = {
  batchSize: 500,
  initialBackoffMs: 30_000,
  maxBackoffMs: 15 * 60_000,
};

/** The wait after the `attempts`-th failed sweep of a todo. */
export const backfillBackoff = (o: BackfillSweepOptions, attempts: number): number =>
  exponentialBackoff({ initialMs: o.initialBackoffMs, maxMs: o.maxBackoffMs }, attempts);

/**
 * Drains `BACKFILL_TODO`: the mailbox write-backs that did not happen right after commit (the
 * mailbox was down, or the process died between commit and backfill). Registered in the same
 * transaction as the terminal state, so none can be forgotten.
 */
export class BackfillSweeper {
  readonly #options: BackfillSweepOptions;

  constructor(
    private readonly deps: { store: PipelineStore; mailbox: Mailbox; clock: Clock; logger: Logger },
    options: Partial<BackfillSweepOptions> = {},
  ) {
    this.#options = { ...DEFAULT_BACKFILL_SWEEP_OPTIONS, ...options };
  }

  /** One sweep over the due todos. Returns how many were written and how many deferred. */
  async step(signal?: AbortSignal): Promise<{ readonly done: number; readonly deferred: number }> {
    const { store, mailbox, clock, logger } = this.deps;
    const now = clock.now();
    const todos = await store.dueBackfill(now, this.#options.batchSize);
    if (todos.length === 0) return { done: 0, deferred: 0 };
    try {
      const result = await mailbox.backfill(todos, signal);
      for (const d of result.defects) logger.error("backfill defect", { msgId: d.msgId, reason: d.reason });
      const done = [...result.written, ...result.alreadyDone];
      await store.completeBackfill(done);
      return { done: done.length, deferred: 0 };
    } catch (e) {
      if (!isMsgxError(e)) throw e;
      const deferred: BackfillTodo[] = todos.map((t) => ({
        ...t,
        attempts: t.attempts + 1,
        nextAttemptAt: now + backfillBackoff(this.#options, t.attempts + 1),
        lastError: errorMessage(e),
      }));
      await store.deferBackfill(deferred);
      logger.warn("backfill sweep deferred", { count: todos.length, error: errorMessage(e) });
      return { done: 0, deferred: todos.length };
    }
  }
}
