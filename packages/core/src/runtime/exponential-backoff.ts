/** An exponential backoff: the first wait, the cap, and the factor between two waits (default 2). */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly multiplier?: number;
}

/**
 * The wait after failure number `failure` (1-based; 0 or less counts as the first):
 * `min(maxMs, initialMs · multiplier^(failure − 1))`. The one backoff rule of msgx — every retry
 * loop, breaker and job calls it. Any number of failures gives a finite wait: once the product
 * overflows, the cap is the answer.
 */
export function exponentialBackoff(backoff: Backoff, failure: number): number {
  if (backoff.initialMs <= 0) return 0;
  const wait = backoff.initialMs * (backoff.multiplier ?? 2) ** Math.max(0, failure - 1);
  return Math.min(backoff.maxMs, wait);
}
