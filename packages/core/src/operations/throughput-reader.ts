/** A minute in epoch milliseconds. */
export const MINUTE_MS = 60_000;

/** The longest window one `throughput` call reads: a day of minutes. */
export const MAX_THROUGHPUT_MINUTES = 1440;

/** What the pipeline finished and the relay sent in one minute. */
export interface MinuteThroughput {
  /** The minute's first instant, epoch milliseconds (a whole minute). */
  readonly at: number;
  /** Messages whose record reached SUCCEEDED, SKIPPED or DEAD in this minute (archived records included). */
  readonly processed: number;
  /** Outbox events (every target) the broker acknowledged in this minute. */
  readonly sent: number;
}

/**
 * Per-minute counts rebuilt from stored times (a record's last change, an event's send time), so
 * every runner answers the same and a restart loses nothing (`GET /admin/status/history`).
 *
 * Every implementation guarantees:
 * - one entry per minute of `[fromMs, fromMs + minutes × 1 min)`, oldest first, zeros included;
 * - a record counts once, in the minute of its last change, while it is terminal (a replayed DEAD
 *   record moves to the minute it finished again); a live record and its archived copy never both;
 * - it reads an index range of the window only (never a whole table), whatever the tables hold.
 *
 * @throws RangeError when `fromMs` is not a whole minute or `minutes` is not an integer from 1 to
 *   {@link MAX_THROUGHPUT_MINUTES}.
 */
export interface ThroughputReader {
  throughput(fromMs: number, minutes: number): Promise<readonly MinuteThroughput[]>;
}

/** Throws the RangeError `throughput` promises for a bad window. */
export function assertThroughputWindow(fromMs: number, minutes: number): void {
  if (!Number.isSafeInteger(fromMs) || fromMs % MINUTE_MS !== 0) throw new RangeError(`fromMs must be a whole minute, got ${fromMs}`);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_THROUGHPUT_MINUTES) {
    throw new RangeError(`minutes must be an integer from 1 to ${MAX_THROUGHPUT_MINUTES}, got ${minutes}`);
  }
}

/** The window's minutes at zero, for an implementation to fill. */
export function emptyMinutes(fromMs: number, minutes: number): { at: number; processed: number; sent: number }[] {
  return Array.from({ length: minutes }, (_, i) => ({ at: fromMs + i * MINUTE_MS, processed: 0, sent: 0 }));
}
