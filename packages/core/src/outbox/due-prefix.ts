/** Anything that may wait for its next try: an outbox event, a processing record. */
export interface Retryable {
  /** When the next try is due; null when it is due now. */
  readonly nextAttemptAt: number | null;
}

/** True when something with this `nextAttemptAt` may be tried at `now`. */
export const isDue = (nextAttemptAt: number | null, now: number): boolean => nextAttemptAt === null || nextAttemptAt <= now;

/**
 * The prefix of `items` that is due at `now`: the run is cut at the first item not yet due, so an
 * item in backoff holds everything behind it (FIFO per target, per mailbox). The outbox stores
 * (fake and PostgreSQL alike) and the pump's run take their runs through this one rule.
 */
export function duePrefix<T extends Retryable>(items: readonly T[], now: number): T[] {
  const run: T[] = [];
  for (const item of items) {
    if (!isDue(item.nextAttemptAt, now)) break;
    run.push(item);
  }
  return run;
}
