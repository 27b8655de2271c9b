import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import type { MaintenanceStore } from "./maintenance-store.js";

export interface ProcStateArchiveOptions {
  /** A terminal record is archived this long after its last change. Default 7 days. */
  readonly retentionMs: number;
  /**
   * The newest ids below the intake horizon are never archived, however old: the poller's re-scan
   * behind the horizon (1,000 ids by default) may still enqueue one of them, and a live record is
   * what makes that enqueue a no-op. Must be at least the poller's `rescanWindow`.
   */
  readonly keepLastIds: number;
  /** Records per transaction. */
  readonly batchSize: number;
}

export const DEFAULT_PROC_STATE_ARCHIVE_OPTIONS: ProcStateArchiveOptions = {
  retentionMs: 7 * 86_400_000,
  keepLastIds: 1_000,
  batchSize: 1_000,
};

/** What one batch did. */
export interface ProcStateArchiveBatch {
  readonly archived: readonly number[];
  /** The batch was full: more records may be due. */
  readonly more: boolean;
}

/**
 * Moves old terminal `PROC_STATE` rows to `PROC_STATE_HST` (SPEC §2.7), one bounded transaction
 * per `step`, under the pipeline lock and fence. Only SUCCEEDED / SKIPPED / DEAD records whose
 * mailbox backfill is done (no todo) move; PENDING and FAILED never do. Dedupe is kept: identity
 * bindings live in `MSG_IDENTITY` and stay, so a re-sent identity still ends SKIPPED
 * `duplicate-of:<archived id>`; an archived id is never enqueued again.
 *
 * Out of scope: replaying an archived message (replay reads `PROC_STATE` only; review DEAD
 * messages within the retention).
 */
export class ProcStateArchiver {
  readonly #options: ProcStateArchiveOptions;

  constructor(
    private readonly deps: {
      readonly store: MaintenanceStore;
      readonly pipeline: PipelineStore;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly fence?: number;
    },
    options: Partial<ProcStateArchiveOptions> = {},
  ) {
    this.#options = { ...DEFAULT_PROC_STATE_ARCHIVE_OPTIONS, ...options };
  }

  async step(): Promise<ProcStateArchiveBatch> {
    const { store, pipeline, clock, logger, fence } = this.deps;
    const { retentionMs, keepLastIds, batchSize } = this.#options;
    // Read outside the transaction: the horizon only rises, so a stale one is merely conservative.
    const horizon = (await pipeline.intakeState())?.horizon ?? 0;
    const throughMsgId = horizon - keepLastIds;
    if (throughMsgId < 1) return { archived: [], more: false };
    const now = clock.now();
    const archived = await store.archiveTerminal(
      { updatedBefore: now - retentionMs, throughMsgId, limit: batchSize, now },
      fence === undefined ? {} : { fence },
    );
    if (archived.length > 0) logger.info("proc state archive batch", { archived: archived.length, first: archived[0], last: archived.at(-1) });
    return { archived, more: archived.length >= batchSize };
  }
}
