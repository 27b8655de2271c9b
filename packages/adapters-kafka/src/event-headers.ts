import { EventHeader } from "@msgx/core";
import type { IHeaders } from "kafkajs";

/**
 * Header names of every msgx record (SPEC §2.4). The names are defined once, in `@msgx/core`
 * (`EventHeader`, with `eventHeaders`, the one place a record's headers are built), and
 * re-exported here so Kafka consumers need only this package: `msgx-event-id`, `msgx-event-type`,
 * `msgx-state-version`, `msgx-source-msg-id`, `traceparent`.
 */
export { EventHeader };

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
