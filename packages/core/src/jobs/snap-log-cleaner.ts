import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { MaintenanceStore } from "./maintenance-store.js";

const DAY_MS = 86_400_000;

export interface SnapLogCleanupOptions {
  /** Days `SCHD_SNAP_LOG` rows are kept (`history.snapLogRetentionDays`, seed: 90). */
  readonly retentionDays: number;
  /** Rows per delete statement. */
  readonly batchSize: number;
}

export const DEFAULT_SNAP_LOG_CLEANUP_OPTIONS: SnapLogCleanupOptions = { retentionDays: 90, batchSize: 5_000 };

/** What one batch did. */
export interface SnapLogCleanupBatch {
  readonly deleted: number;
  /** The batch was full: more rows may be due. */
  readonly more: boolean;
}

/**
 * The `SCHD_SNAP_LOG` purge (seed 000 §6.2): rows logged more than `retentionDays` × 24 h ago are
 * deleted, oldest first, one bounded statement per `step`. It touches no pipeline state.
 */
export class SnapLogCleaner {
  readonly #options: SnapLogCleanupOptions;

  constructor(
    private readonly deps: { readonly store: MaintenanceStore; readonly clock: Clock; readonly logger: Logger },
    options: Partial<SnapLogCleanupOptions> = {},
  ) {
    this.#options = { ...DEFAULT_SNAP_LOG_CLEANUP_OPTIONS, ...options };
    if (!Number.isInteger(this.#options.retentionDays) || this.#options.retentionDays < 0) {
      throw new RangeError(`retentionDays must be a non-negative integer, got ${this.#options.retentionDays}`);
    }
  }

  /** Rows logged before this instant are due at `now`. */
  cutoff(now: number): number {
    return now - this.#options.retentionDays * DAY_MS;
  }

  async step(): Promise<SnapLogCleanupBatch> {
    const { store, clock, logger } = this.deps;
    const deleted = await store.purgeSnapLog(this.cutoff(clock.now()), this.#options.batchSize);
    if (deleted > 0) logger.info("snap log cleanup batch", { deleted });
    return { deleted, more: deleted >= this.#options.batchSize };
  }
}
