import type { DeliveryPlacement } from "./delivery-placement.js";
import { states, type ValueOf } from "../base/states.js";

/** Delivery targets (SPEC §2.4); `KAFKA:ref` carries reference data (docs/events.md). */
export const Target = { MSG: "KAFKA:msg", SCHD: "KAFKA:schd", REF: "KAFKA:ref" } as const;
export type Target = ValueOf<typeof Target> | (string & {});

export const EventType = states("UPSERT", "TOMBSTONE");
export type EventType = ValueOf<typeof EventType>;

/** Delivery states of an outbox event: `PENDING -> SENT | PENDING (backoff) | DEAD`. */
export const DeliveryStatus = states("PENDING", "SENT", "DEAD");
export type DeliveryStatus = ValueOf<typeof DeliveryStatus>;

/** An event as a processor produces it, before the store gives it an `EVENT_ID`. */
export interface OutboxEventDraft {
  readonly target: Target;
  /** The Kafka record key: the FLID for flight events, `<TYPE>:<KEY>` for reference events. */
  readonly partitionKey: string;
  readonly eventType: EventType;
  readonly stateVersion: number;
  /** The JSON record value (`docs/events.md`): null for a schd tombstone; a msg tombstone carries the final state. */
  readonly payload: unknown;
  /** The mailbox id of the message that caused it. */
  readonly sourceMsgId: number;
  /** W3C `traceparent` of the processing that caused it, when tracing is on. */
  readonly traceparent?: string | null;
  /**
   * Extra headers the producer wants on the delivered record, stored with the row and sent as
   * stored (a task event's owner, for one). The relay's own headers (`EventHeader`) always win on
   * a name clash. A store gives them back as written, or null when the draft had none.
   */
  readonly headers?: Readonly<Record<string, string>> | null;
}

/** A stored `MSG_EVENT` row. */
export interface OutboxEvent extends OutboxEventDraft {
  /** Orders delivery within a target; also the stable event id sent as a header. */
  readonly eventId: number;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly sentAt: number | null;
  /**
   * Where the broker put the record, as the delivery port reported it when the event was marked
   * SENT; null while unsent, for events sent before placements were recorded, and where the port
   * could not tell. Absent from stores that do not record it.
   */
  readonly placement?: DeliveryPlacement | null;
  /**
   * The payload's JSON text exactly as the store holds it, when the store reads it as text (the
   * PostgreSQL store does; the in-memory one does not): `JSON.stringify` of the payload as it was
   * written, keys in their own order. Absent when the payload is null. Delivery sends it as the
   * record value as is instead of serializing `payload` again.
   */
  readonly payloadJson?: string;
}

/** The row `draft` becomes when the outbox stores it with `eventId` at `now`: PENDING, no attempt yet, due at once. */
export function pendingEvent(draft: OutboxEventDraft, eventId: number, now: number): OutboxEvent {
  return {
    ...draft,
    traceparent: draft.traceparent ?? null,
    headers: draft.headers ?? null,
    eventId,
    status: DeliveryStatus.PENDING,
    attempts: 0,
    nextAttemptAt: null,
    lastError: null,
    createdAt: now,
    sentAt: null,
  };
}
