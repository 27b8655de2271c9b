import type { DeliveryPlacement } from "../outbox/delivery-placement.js";

export type { DeliveryPlacement };

/** One record to publish: topic, key, value (null for a tombstone) and string headers. */
export interface DeliveryRecord {
  readonly topic: string;
  readonly key: string;
  /** Serialized JSON, or null for a tombstone. */
  readonly value: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Publishes records to the broker (Kafka in production, an in-memory broker in tests, JSONL files
 * in the embedded runner).
 *
 * Every implementation guarantees:
 * - `send` resolves only after every record of the call is durably acknowledged (acks=all);
 * - records of one call with the same key are appended in call order, and a call's records are
 *   never reordered behind a later call's;
 * - on failure it throws a `MsgxError`: `DEPENDENCY_UNAVAILABLE` when the broker is unreachable or
 *   timed out (the caller pauses and spends no attempt), another kind for a fault of the records;
 *   some records of a failed call may have been appended, but only an in-order prefix per key
 *   (at-least-once: the caller resends them with the same event-id header, never out of order);
 * - a successful `send` resolves to one placement per record of the call, in call order: where
 *   the broker put that record (records of one call to one partition get ascending offsets, and a
 *   later call's records come after them), or null where the implementation cannot tell. A resent
 *   record gets a new placement: the broker holds both copies.
 */
export interface DeliveryPort {
  send(records: readonly DeliveryRecord[], signal?: AbortSignal): Promise<readonly (DeliveryPlacement | null)[]>;
}

/**
 * How a leader's sends are fenced on the broker, so that a stale leader's send never lands after a
 * newer leader's (Kafka: a transactional id, whose InitProducerId fences every earlier producer of
 * that id). A port built with it guarantees, besides everything `DeliveryPort` guarantees:
 * - before its first send, and again before the first send after any failed one, it claims
 *   `transactionalId` on the broker: from then on, no send of an earlier claim of that id (this
 *   process's or another's) lands, and one that had not landed yet never does;
 * - only after the claim does it call `confirm()`, and it sends nothing under the claim unless the
 *   answer is true; once it is false, every send is refused `FENCED` (not retriable). A `confirm`
 *   that throws sends nothing either; the next send claims again;
 * - a send refused because a later claim fenced this one fails `DEPENDENCY_UNAVAILABLE` (nothing
 *   of it lands; the next send claims again and asks `confirm`).
 *
 * The runner's `confirm` asks the lease store whether this process still holds its lease with the
 * same epoch. A yes, read after the claim, means every newer leader was granted its lease, and so
 * claimed, after this claim: a newer leader's claim fences this one before its first send.
 */
export interface ProducerFencing {
  /** One per deployment's leader role: every leader of the exchange uses the same id. */
  readonly transactionalId: string;
  /** Whether this process still leads with the epoch it started with; asked after each claim. */
  confirm(): Promise<boolean>;
}
