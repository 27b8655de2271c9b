import { EventHeader } from "@msgx/core";
import type { IHeaders } from "kafkajs";

/**
 * Header names of every msgx record (SPEC §2.4). The names are defined once, in `@msgx/core`
 * (`EventHeader`), and re-exported here so Kafka consumers need only this package:
 * `msgx-event-id`, `msgx-event-type`, `msgx-state-version`, `msgx-source-msg-id`, `traceparent`.
 */
export { EventHeader };

/** The outbox event fields the headers are built from (a structural subset of `OutboxEvent`). */
export interface EventHeaderFields {
  /** The stable `EVENT_ID`: the same on every resend, so consumers can dedupe on it. */
  readonly eventId: number | string;
  /** `UPSERT` or `TOMBSTONE`. */
  readonly eventType: string;
  /** The FLID's state version the record carries; newer states have larger versions. */
  readonly stateVersion: number;
  /** The mailbox id of the message that caused the event. */
  readonly sourceMsgId: number | string;
  /** W3C trace context, when tracing was on. */
  readonly traceparent?: string | null;
}

/** The headers of a record delivering `fields` (numbers as decimal strings; no empty traceparent). */
export function buildEventHeaders(fields: EventHeaderFields): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {
    [EventHeader.EVENT_ID]: String(fields.eventId),
    [EventHeader.EVENT_TYPE]: fields.eventType,
    [EventHeader.STATE_VERSION]: String(fields.stateVersion),
    [EventHeader.SOURCE_MSG_ID]: String(fields.sourceMsgId),
  };
  if (fields.traceparent) headers[EventHeader.TRACEPARENT] = fields.traceparent;
  return headers;
}

/** What a consumer reads back from a record's headers. */
export interface ParsedEventHeaders {
  readonly eventId: string;
  readonly eventType: string;
  readonly stateVersion: number;
  readonly sourceMsgId: string;
  readonly traceparent?: string;
}

/**
 * Reads the msgx headers of a consumed kafkajs message (values arrive as Buffers). Returns
 * undefined when a required header is missing or the state version is not an integer: such a
 * record was not written by msgx.
 */
export function readEventHeaders(headers: IHeaders | undefined): ParsedEventHeaders | undefined {
  if (headers === undefined) return undefined;
  const eventId = text(headers[EventHeader.EVENT_ID]);
  const eventType = text(headers[EventHeader.EVENT_TYPE]);
  const version = text(headers[EventHeader.STATE_VERSION]);
  const sourceMsgId = text(headers[EventHeader.SOURCE_MSG_ID]);
  if (eventId === undefined || eventType === undefined || version === undefined || sourceMsgId === undefined) return undefined;
  if (!/^-?\d+$/.test(version)) return undefined;
  const stateVersion = Number(version);
  if (!Number.isSafeInteger(stateVersion)) return undefined;
  const traceparent = text(headers[EventHeader.TRACEPARENT]);
  return traceparent === undefined
    ? { eventId, eventType, stateVersion, sourceMsgId }
    : { eventId, eventType, stateVersion, sourceMsgId, traceparent };
}

function text(value: IHeaders[string]): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  if (one === undefined) return undefined;
  return typeof one === "string" ? one : one.toString("utf8");
}
