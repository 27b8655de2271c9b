import type { OutboxEvent } from "../outbox/outbox-event.js";
import type { ValueOf } from "../base/states.js";

/**
 * The headers every delivered record carries (SPEC §2.4). Any `DeliveryPort` gets them from here,
 * and consumers dedupe on `msgx-event-id`: it is the stable `EVENT_ID` of the outbox row, the
 * same on every resend. For a merged schd record it is the id of the newest event of the FLID.
 */
export const EventHeader = {
  EVENT_ID: "msgx-event-id",
  EVENT_TYPE: "msgx-event-type",
  STATE_VERSION: "msgx-state-version",
  SOURCE_MSG_ID: "msgx-source-msg-id",
  /** W3C trace context; present only when the event was written with tracing on. */
  TRACEPARENT: "traceparent",
} as const;
export type EventHeader = ValueOf<typeof EventHeader>;

const RESERVED: ReadonlySet<string> = new Set(Object.values(EventHeader));

/** What the headers are built from: a stored row, or a draft with the id it will get. */
export type RecordHeaderFields = Pick<OutboxEvent, "eventId" | "eventType" | "stateVersion" | "sourceMsgId" | "traceparent" | "headers">;

/**
 * The headers of the record that delivers `event` (decimal strings for the numbers): the extra
 * headers stored on the row, then the msgx headers. An `EventHeader` name among the stored ones is
 * dropped, so a producer can neither override nor forge the relay's own (not even a traceparent
 * the event does not have). The one place a delivered record's headers are built.
 */
export function eventHeaders(event: RecordHeaderFields): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (!RESERVED.has(name)) headers[name] = value;
  }
  Object.assign(headers, {
    [EventHeader.EVENT_ID]: String(event.eventId),
    [EventHeader.EVENT_TYPE]: event.eventType,
    [EventHeader.STATE_VERSION]: String(event.stateVersion),
    [EventHeader.SOURCE_MSG_ID]: String(event.sourceMsgId),
  });
  if (event.traceparent) headers[EventHeader.TRACEPARENT] = event.traceparent;
  return headers;
}

/** The event id a record carries, or undefined when the header is missing or not an integer. */
export function readEventId(headers: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = headers[EventHeader.EVENT_ID];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}
