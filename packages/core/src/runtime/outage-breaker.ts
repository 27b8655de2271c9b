import { exponentialBackoff } from "./exponential-backoff.js";

/**
 * A circuit breaker for dependency outages. While open, its owner (the pump, a delivery target)
 * does no work and spends no attempts; it probes again after a backoff that doubles up to a cap.
 *
 * States:
 * - closed (`openedAt === null`): work normally.
 * - open: entered on an outage error. `probeAt` is when the next try is allowed; a failed probe
 *   doubles the wait; a successful one closes the breaker.
 */
export interface BreakerState {
  readonly openedAt: number | null;
  readonly failures: number;
  readonly probeAt: number;
}

export interface BreakerPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { initialMs: 500, maxMs: 30_000 };

export const closedBreaker: BreakerState = { openedAt: null, failures: 0, probeAt: 0 };

export const Breaker = {
  isOpen: (s: BreakerState): boolean => s.openedAt !== null,
  /** True when work may be attempted now (closed, or open and due for a probe). */
  mayTry: (s: BreakerState, now: number): boolean => s.openedAt === null || now >= s.probeAt,
  onOutage(s: BreakerState, now: number, policy: BreakerPolicy = DEFAULT_BREAKER_POLICY): BreakerState {
    const failures = s.failures + 1;
    const wait = exponentialBackoff(policy, failures);
    return { openedAt: s.openedAt ?? now, failures, probeAt: now + wait };
  },
  onSuccess: (_s: BreakerState): BreakerState => closedBreaker,
} as const;
