import { exponentialBackoff } from "./exponential-backoff.js";

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
  exponentialBackoff({ initialMs: policy.initialBackoffMs, maxMs: policy.maxBackoffMs, multiplier: policy.backoffMultiplier }, attempt);

/**
 * The own short budget of a message no processor takes (WIRE.md "Unknown and unwanted types"): an
 * unknown TYPE must not hold the FIFO head for the whole normal budget.
 */
export interface UnsupportedPolicy {
  /**
   * `fail`: FAILED(UNSUPPORTED) with the normal backoff until `maxAttempts` or `headDeadlineMs`,
   * then DEAD(EXHAUSTED), audited and replayable. `skip`: SKIPPED `unsupported:<TYPE>/<STYP>` at
   * once, audited.
   */
  readonly mode: "fail" | "skip";
  /** A failure that brings `attempts` to this number ends DEAD(EXHAUSTED). */
  readonly maxAttempts: number;
  /** A FAILED(UNSUPPORTED) head held longer than this from its stable start ends DEAD(EXHAUSTED); never above the normal head deadline. */
  readonly headDeadlineMs: number;
}

/** 3 attempts (backoff 1, 2 s: DEAD about 3 s in), at most 10 s at the head. */
export const DEFAULT_UNSUPPORTED_POLICY: UnsupportedPolicy = { mode: "fail", maxAttempts: 3, headDeadlineMs: 10_000 };

/** How long a FAILED head of `errorClass` may be held: UNSUPPORTED has its own, shorter deadline. */
export const headDeadlineFor = (errorClass: string | null, policy: RetryPolicy, unsupported: UnsupportedPolicy): number =>
  errorClass === "UNSUPPORTED" ? Math.min(policy.headDeadlineMs, unsupported.headDeadlineMs) : policy.headDeadlineMs;
