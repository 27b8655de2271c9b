import type { RetryPolicy } from "../runtime/retry-policy.js";
import { backoffAfter } from "../runtime/retry-policy.js";

/**
 * Delivery states of an outbox event (SPEC §2.4): `PENDING -> SENT | PENDING (backoff) | DEAD`.
 *
 * - `PENDING`: entered when the pipeline commits the event. Due when `nextAttemptAt` is null or
 *   past. Leaves to SENT when the broker acknowledges a record that carries it (for schd: a record
 *   of its FLID's newest version), to PENDING (backoff) on a fault of the event, to DEAD when
 *   that fault uses up the attempts.
 * - `PENDING (backoff)`: a fault of this event (or of its FLID's merged record) was recorded:
 *   `attempts` counts it, `nextAttemptAt` is now + backoff. A `KAFKA:msg` head in backoff blocks
 *   its own target only; a schd FLID in backoff blocks only that FLID.
 * - `SENT`: terminal; `sentAt` is the first acknowledgement. A resend never moves it back.
 * - `DEAD`: terminal; kept as the dead-letter record with `lastError`; it no longer blocks.
 *
 * A broker outage is not a fault of the event: the driver's breaker opens and no attempt is spent,
 * so an outage of any length never turns an event DEAD.
 */
export type FailureDecision =
  | { readonly action: "retry"; readonly attempts: number; readonly nextAttemptAt: number }
  | { readonly action: "dead"; readonly attempts: number };

/** What a fault of an event (with `attemptsBefore` failures so far) does to it at `now`. */
export function decideDeliveryFailure(attemptsBefore: number, now: number, policy: RetryPolicy): FailureDecision {
  const attempts = attemptsBefore + 1;
  if (attempts >= policy.maxAttempts) return { action: "dead", attempts };
  return { action: "retry", attempts, nextAttemptAt: now + backoffAfter(policy, attempts) };
}

