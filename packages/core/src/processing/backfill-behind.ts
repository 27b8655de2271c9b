import { errorMessage, isMsgxError, isOutage } from "../errors/msgx-error.js";
import type { Mailbox } from "../ports/mailbox.js";
import type { Logger } from "../runtime/logger.js";
import type { PipelineStore } from "./pipeline-store.js";
import type { RunDecision } from "./run-decision.js";

/** The ports a write-back goes through. */
export interface BackfillBehindDeps {
  readonly store: PipelineStore;
  readonly mailbox: Mailbox;
  readonly logger: Logger;
}

/**
 * The pump's write-back to the mailbox of committed runs, running behind the steps: `start`
 * returns without waiting for it, so the step (and the dispatcher the runner wakes on it) is not
 * held up by the mailbox's own commit, and the next run is read and decided meanwhile. At most one
 * write-back runs at a time: the previous one is waited for first. The todos were registered in
 * the run's transaction, so a write-back lost in a crash is redone by the sweep, and mailbox rows
 * are written in any order anyway.
 */
export class BackfillBehind {
  readonly #deps: BackfillBehindDeps;
  /** The write-back of the last committed run, still on its way. */
  #running: Promise<void> | null = null;

  constructor(deps: BackfillBehindDeps) {
    this.#deps = deps;
  }

  /** Starts the write-back of a committed run, once the previous one ended. */
  async start(decision: RunDecision): Promise<void> {
    await this.settle();
    const running = this.#backfill(decision);
    // Observed here so a failure is never unhandled; it is rethrown by the next settle.
    running.catch(() => undefined);
    this.#running = running;
  }

  /** Waits for the write-back still on its way, if any, and rethrows its failure. */
  async settle(): Promise<void> {
    const running = this.#running;
    this.#running = null;
    if (running !== null) await running;
  }

  /**
   * Writes back to the mailbox after commit. A failure leaves the todos registered in the
   * transaction for the backfill sweep; it never holds up the pump.
   */
  async #backfill(decision: RunDecision): Promise<void> {
    if (decision.backfill.length === 0) return;
    const { mailbox, store, logger } = this.#deps;
    try {
      const result = await mailbox.backfill(decision.backfill);
      for (const d of result.defects) logger.error("backfill defect", { msgId: d.msgId, reason: d.reason });
      await store.completeBackfill([...result.written, ...result.alreadyDone]);
    } catch (e) {
      if (!isOutage(e) && !isMsgxError(e)) throw e;
      logger.warn("backfill deferred to the sweep", { count: decision.backfill.length, error: errorMessage(e) });
    }
  }
}
