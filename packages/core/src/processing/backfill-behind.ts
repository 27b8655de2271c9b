import { errorMessage, isMsgxError, isOutage } from "../errors/msgx-error.js";
import type { BackfillEntry, Mailbox } from "../ports/mailbox.js";
import type { Logger } from "../runtime/logger.js";
import type { PipelineStore } from "./pipeline-store.js";
import type { RunDecision } from "./run-decision.js";

/** The ports a write-back goes through. */
export interface BackfillBehindDeps {
  readonly store: PipelineStore;
  readonly mailbox: Mailbox;
  readonly logger: Logger;
}

/** When the write-back of committed runs goes out (SPEC §2.5: in batches, not one write per message). */
export interface BackfillBehindOptions {
  /**
   * How long the first todo of a batch may wait for more to join it. 0 writes back after every
   * committed run. The todos are registered in each run's transaction, so a batch lost in a crash
   * (or a lost leadership) is redone by the sweep.
   */
  readonly delayMs: number;
  /** A batch this large goes out at once, whatever its age. */
  readonly maxBatch: number;
}

export const DEFAULT_BACKFILL_BEHIND_OPTIONS: BackfillBehindOptions = { delayMs: 0, maxBatch: 500 };

/**
 * The pump's write-back to the mailbox of committed runs, running behind the steps: `add` never
 * waits for the mailbox, so the step (and the dispatcher the runner wakes on it) is not held up by
 * the mailbox's own commit, and the next run is read and decided meanwhile.
 *
 * - **Pending**: the todos of committed runs not yet written back, oldest first. A batch goes out
 *   once its first todo is `delayMs` old or it holds `maxBatch` todos, at the next `add` or `due`
 *   (the driver calls the pump again at {@link dueAt}); `flush` sends it whatever its age.
 * - **Running**: at most one write-back at a time; todos added meanwhile wait for the next batch.
 *
 * Mailbox rows are written in any order anyway, and a failed write-back leaves its todos to the
 * sweep: it never holds up the pump.
 */
export class BackfillBehind {
  readonly #deps: BackfillBehindDeps;
  readonly #options: BackfillBehindOptions;
  #pending: BackfillEntry[] = [];
  /** When the oldest pending todo was added (the clock of the `add` that added it). */
  #pendingSince: number | null = null;
  /** The last write-back started, until a `settle` collected it (and its failure, if any). */
  #running: Promise<void> | null = null;
  /** Whether that write-back is still on its way. */
  #busy = false;

  constructor(deps: BackfillBehindDeps, options: Partial<BackfillBehindOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_BACKFILL_BEHIND_OPTIONS, ...options };
  }

  /** Adds a committed run's todos; starts a write-back when the batch is due and none is running. */
  async add(decision: RunDecision, now: number): Promise<void> {
    if (decision.backfill.length === 0) return;
    if (!this.#busy) await this.settle();
    this.#pending.push(...decision.backfill);
    this.#pendingSince ??= now;
    // Bounded: a full batch behind a running write-back waits for it rather than grow.
    if (this.#pending.length >= this.#options.maxBatch) await this.settle();
    this.#startIfDue(now);
  }

  /** When the pending batch is due (for the driver's next call), or null when nothing is pending. */
  dueAt(): number | null {
    return this.#pendingSince === null ? null : this.#pendingSince + this.#options.delayMs;
  }

  /** Starts the pending batch if it is due and waits for it (and for the one on its way before it). */
  async due(now: number): Promise<void> {
    await this.settle();
    this.#startIfDue(now);
    await this.settle();
  }

  /** Writes back everything pending, whatever its age, and waits for it (a stopping pump). */
  async flush(): Promise<void> {
    await this.settle();
    this.#start();
    await this.settle();
  }

  /** Waits for the write-back on its way, if any, and rethrows its failure. */
  async settle(): Promise<void> {
    const running = this.#running;
    this.#running = null;
    if (running !== null) await running;
  }

  #startIfDue(now: number): void {
    const dueAt = this.dueAt();
    if (dueAt === null || this.#busy) return;
    if (now >= dueAt || this.#pending.length >= this.#options.maxBatch) this.#start();
  }

  #start(): void {
    if (this.#pending.length === 0) return;
    const todos = this.#pending;
    this.#pending = [];
    this.#pendingSince = null;
    this.#busy = true;
    const running = this.#backfill(todos).finally(() => {
      this.#busy = false;
    });
    // Observed here so a failure is never unhandled; it is rethrown by the next settle.
    running.catch(() => undefined);
    this.#running = running;
  }

  /**
   * Writes back after commit. A failure leaves the todos registered in the transactions for the
   * backfill sweep; it never holds up the pump.
   */
  async #backfill(todos: readonly BackfillEntry[]): Promise<void> {
    const { mailbox, store, logger } = this.#deps;
    try {
      const result = await mailbox.backfill(todos);
      for (const d of result.defects) logger.error("backfill defect", { msgId: d.msgId, reason: d.reason });
      await store.completeBackfill([...result.written, ...result.alreadyDone]);
    } catch (e) {
      if (!isOutage(e) && !isMsgxError(e)) throw e;
      logger.warn("backfill deferred to the sweep", { count: todos.length, error: errorMessage(e) });
    }
  }
}
