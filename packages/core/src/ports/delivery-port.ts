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
