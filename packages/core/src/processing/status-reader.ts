import type { ProcStatus } from "../model/proc-record.js";

/** What an operator and the metrics need to see at a glance (`msgx status`, `/metrics`). */
export interface PipelineStatus {
  /** The head: the smallest unfinished message, with its age since it was received. */
  readonly head: { readonly msgId: number; readonly status: ProcStatus; readonly receivedAt: number } | null;
  /** Messages per processing status. */
  readonly byStatus: Readonly<Record<ProcStatus, number>>;
  /** DEAD messages (kept for review). */
  readonly deadLetters: number;
  /** Mailbox backfills not done yet. */
  readonly backfillDebt: number;
  /**
   * When the oldest of them was committed (its `DATE_PROCESSED`, epoch ms); null when none. The
   * leader batches its write-backs, so under steady traffic the debt is seldom 0: its age, not its
   * count, tells a write-back that fails or falls behind.
   */
  readonly oldestBackfillAt: number | null;
  /** Per delivery target: pending events, the oldest pending event's creation time, DEAD events. */
  readonly delivery: Readonly<Record<string, { readonly pending: number; readonly oldestPendingAt: number | null; readonly dead: number }>>;
  /** The intake's persisted horizon. */
  readonly horizon: number;
}

/**
 * Reads aggregate state for status and metrics. Every implementation answers from committed data
 * with a bounded number of queries (counts use indexes; no full scan of history is required).
 */
export interface StatusReader {
  status(): Promise<PipelineStatus>;
}
