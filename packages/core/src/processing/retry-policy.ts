/**
 * How failures of one message (or one event) are retried. All durations in milliseconds.
 * Defaults (SPEC §2.1): 5 attempts, backoff 1, 2, 4, 8, 16 s capped at 60 s, head deadline 10 min.
 */
export interface RetryPolicy {
  /** A failure that brings `attempts` to this number ends DEAD(EXHAUSTED) instead of FAILED. */
  readonly maxAttempts: number;
  readonly initialBackoffMs: number;
  readonly backoffMultiplier: number;
  readonly maxBackoffMs: number;
  /** A FAILED head held longer than this (from its stable start) ends DEAD(EXHAUSTED). */
  readonly headDeadlineMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  initialBackoffMs: 1_000,
  backoffMultiplier: 2,
  maxBackoffMs: 60_000,
  headDeadlineMs: 10 * 60_000,
};

/** The wait after the `attempt`-th failure (1-based): initial × multiplier^(attempt-1), capped. */
export const backoffAfter = (policy: RetryPolicy, attempt: number): number =>
  Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.backoffMultiplier ** Math.max(0, attempt - 1));
