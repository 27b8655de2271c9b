import { isMsgxError } from "../errors/msgx-error.js";
import type { RetryPolicy } from "../runtime/retry-policy.js";
import { backoffAfter } from "../runtime/retry-policy.js";

/**
 * Delivery states of an outbox event (SPEC §2.4): `PENDING -> SENT | PENDING (backoff) | DEAD`.
 *
 * - `PENDING`: entered when the pipeline commits the event. Due when `nextAttemptAt` is null or
 *   past. Leaves to SENT when the broker acknowledges a record that carries it (for schd: a record
 *   of its FLID's newest version), to PENDING (backoff) on a fault of the event, to DEAD when
 *   that fault uses up the attempts or is a refusal for good.
 * - `PENDING (backoff)`: a fault of this event (or of its FLID's merged record) was recorded:
 *   `attempts` counts it, `nextAttemptAt` is now + backoff. A `KAFKA:msg` head in backoff blocks
 *   its own target only; a schd FLID in backoff blocks only that FLID.
 * - `SENT`: terminal; `sentAt` is the first acknowledgement. A resend never moves it back.
 * - `DEAD`: terminal; kept as the dead-letter record with `lastError`; it no longer blocks.
 *   Entered when a fault uses up the attempts, or at once when the broker refused the record
 *   for good (docs/operations.md "An event the broker refuses").
 *
 * A broker outage is not a fault of the event: the driver's breaker opens and no attempt is spent,
 * so an outage of any length never turns an event DEAD.
 */
export type FailureDecision =
  | { readonly action: "retry"; readonly attempts: number; readonly nextAttemptAt: number }
  | { readonly action: "dead"; readonly attempts: number };

/**
 * True when the broker refused a record for good: a `MsgxError` marked not retriable, as the
 * Kafka port maps MESSAGE_TOO_LARGE, INVALID_RECORD and the like (docs/kafka.md). The same
 * bytes would be refused on every attempt, so spending them only delays the dead letter.
 */
export const refusedForGood = (fault: unknown): boolean => isMsgxError(fault) && !fault.retriable;

/** The class logged with a dead event: the `MsgxError` kind, or `unknown` for any other error. */
export const errorKind = (fault: unknown): string => (isMsgxError(fault) ? fault.kind : "unknown");

/**
 * What a fault of an event (with `attemptsBefore` failures so far) does to it at `now`: a record
 * the broker `refused` for good ({@link refusedForGood}) is dead at once, any other fault backs
 * off until the attempts are used up.
 */
export function decideDeliveryFailure(attemptsBefore: number, now: number, policy: RetryPolicy, refused = false): FailureDecision {
  const attempts = attemptsBefore + 1;
  if (refused || attempts >= policy.maxAttempts) return { action: "dead", attempts };
  return { action: "retry", attempts, nextAttemptAt: now + backoffAfter(policy, attempts) };
}

