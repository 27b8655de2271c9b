/** When the schd flusher flushes (SPEC §2.4: every 3 s or at 500 pending). */
export interface SchdFlushPolicy {
  /** Flush when this long has passed since the last flush. */
  readonly intervalMs: number;
  /** Flush at once when this many schd events are pending. */
  readonly flushAt: number;
}

export const DEFAULT_SCHD_FLUSH_POLICY: SchdFlushPolicy = { intervalMs: 3_000, flushAt: 500 };

export interface SchdFlushInput {
  readonly now: number;
  /** When the last flush ran; null before the first one (a fresh process flushes at once). */
  readonly lastFlushAt: number | null;
  /** Pending `KAFKA:schd` events (in backoff included). */
  readonly pending: number;
  /**
   * The last flush read a full window and made progress: what is behind it has waited long
   * enough already, so the next flush follows at once. Absent means false.
   */
  readonly backlog?: boolean;
}

/**
 * True when a flush is due: something is pending, and the interval passed, the threshold is met,
 * a backlog is being drained, or this process has not flushed yet. Pure.
 */
export function shouldFlush(input: SchdFlushInput, policy: SchdFlushPolicy = DEFAULT_SCHD_FLUSH_POLICY): boolean {
  if (input.pending <= 0) return false;
  if (input.lastFlushAt === null || input.backlog === true || input.pending >= policy.flushAt) return true;
  return input.now - input.lastFlushAt >= policy.intervalMs;
}
