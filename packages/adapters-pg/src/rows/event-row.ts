import type { DeliveryStatus, EventType, OutboxEvent } from "@msgx/core";
import { fromJson, toMs, toMsOrNull, toNumber } from "./values.js";

export interface EventRow {
  readonly event_id: unknown;
  readonly target: string;
  readonly partition_key: string;
  readonly event_type: string;
  readonly state_version: unknown;
  /** The json column as text (`payload::text`): the driver does not parse it. */
  readonly payload: string | null;
  readonly source_msg_id: unknown;
  readonly traceparent: string | null;
  /** The jsonb object of extra record headers, or null. */
  readonly headers: unknown;
  readonly status: string;
  readonly attempts: unknown;
  readonly next_attempt_at: unknown;
  readonly last_error: string | null;
  readonly created_at: unknown;
  readonly sent_at: unknown;
  readonly kafka_partition: unknown;
  readonly kafka_offset: unknown;
}

/** A timestamp column as epoch milliseconds (a float8 the driver reads as a number, not a string it parses as a date). */
const epochMs = (column: string): string => `floor(extract(epoch FROM ${column}) * 1000)::float8 AS ${column}`;

/**
 * The columns of an event row. The timestamps come as epoch milliseconds: a relay reads every
 * row of every batch, and the drivers' date parsing is a measurable part of its CPU per event
 * (docs/benchmarks.md "2026-12-02: toward the limit").
 */
export const EVENT_COLUMNS = [
  "event_id, target, partition_key, event_type, state_version, payload::text AS payload, source_msg_id, traceparent, headers, status, attempts",
  epochMs("next_attempt_at"),
  "last_error",
  epochMs("created_at"),
  epochMs("sent_at"),
  "kafka_partition, kafka_offset",
].join(", ");

/**
 * The columns a read of PENDING events needs (`PendingEventRow`): such a row has no sent instant
 * and no placement (the fold sets them together with SENT, and nothing sets an event PENDING
 * again), and the read names its target. A relay reads every row of every batch, and each column
 * left out is a value the driver parses and a string the collector frees.
 */
export const PENDING_EVENT_COLUMNS = [
  "event_id, partition_key, event_type, state_version, payload::text AS payload, source_msg_id, traceparent, headers, attempts",
  epochMs("next_attempt_at"),
  "last_error",
  epochMs("created_at"),
].join(", ");

export type PendingEventRow = Omit<EventRow, "target" | "status" | "sent_at" | "kafka_partition" | "kafka_offset">;

/**
 * The event of a row. The payload is read as text and a relay sends that text as it is
 * (`payloadJson`), so `payload` is parsed only when something reads it, and then once.
 */
export const eventFromRow = (r: EventRow): OutboxEvent =>
  storedEvent(
    r,
    r.target,
    r.status as DeliveryStatus,
    toMsOrNull(r.sent_at),
    r.kafka_partition === null || r.kafka_partition === undefined || r.kafka_offset === null || r.kafka_offset === undefined
      ? null
      : { partition: toNumber(r.kafka_partition), offset: toNumber(r.kafka_offset) },
  );

/** The event of a row read with `PENDING_EVENT_COLUMNS` from the PENDING events of `target`. */
export const pendingEventFromRow = (target: string) => (r: PendingEventRow): OutboxEvent => storedEvent(r, target, "PENDING", null, null);

function storedEvent(r: PendingEventRow, target: string, status: DeliveryStatus, sentAt: number | null, placement: OutboxEvent["placement"]): OutboxEvent {
  const text = r.payload === null || r.payload === "null" ? null : r.payload;
  let parsed: unknown = text === null ? null : undefined;
  return {
    eventId: toNumber(r.event_id),
    target,
    partitionKey: r.partition_key,
    eventType: r.event_type as EventType,
    stateVersion: toNumber(r.state_version),
    get payload(): unknown {
      if (parsed === undefined) parsed = JSON.parse(text as string);
      return parsed;
    },
    payloadJson: text ?? undefined,
    sourceMsgId: toNumber(r.source_msg_id),
    traceparent: r.traceparent,
    headers: r.headers === null || r.headers === undefined ? null : fromJson<Readonly<Record<string, string>>>(r.headers),
    status,
    attempts: toNumber(r.attempts),
    nextAttemptAt: toMsOrNull(r.next_attempt_at),
    lastError: r.last_error,
    createdAt: toMs(r.created_at),
    sentAt,
    placement,
  };
}
