import type { OutboxEventDraft } from "./outbox-event.js";
import { eventHeaders } from "./event-headers.js";
import { payloadJson } from "./payload-json.js";

/**
 * The default broker limit a record must fit in: just under Kafka's default `message.max.bytes`
 * (1,048,588), which bounds a whole record batch, and a record sent alone is a batch of one.
 */
export const DEFAULT_MAX_RECORD_BYTES = 1_000_000;

/**
 * The widest event id a record can carry: an `EVENT_ID` is a safe integer. The id is given by
 * the store after the decision, so a size decided before it counts the header at this width.
 */
const WIDEST_EVENT_ID = Number.MAX_SAFE_INTEGER;

/**
 * A W3C `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`): the processing span may stamp one on the
 * events after the decision, so a draft without one counts it too.
 */
const WIDEST_TRACEPARENT = `00-${"0".repeat(32)}-${"0".repeat(16)}-00`;

/** Record batch header of Kafka's record format v2 (the batch the record travels in alone). */
const BATCH_OVERHEAD_BYTES = 61;

/** Bytes of `n` as a zig-zag varint (Kafka's record fields); lengths and counts are small. */
function varintBytes(n: number): number {
  let zigzag = n >= 0 ? n * 2 : -n * 2 - 1;
  let bytes = 1;
  while (zigzag >= 0x80) {
    zigzag = Math.floor(zigzag / 0x80);
    bytes += 1;
  }
  return bytes;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** A field with its varint length prefix; null is the length -1 and no bytes. */
const sized = (text: string | null): number => (text === null ? varintBytes(-1) : varintBytes(utf8Bytes(text)) + utf8Bytes(text));

/**
 * The bytes a record takes on the wire as a batch of its own (Kafka record format v2,
 * uncompressed): the batch header, then the record's length, attributes, timestamp and offset
 * deltas (counted at their widest), key, value and headers, each with its length. This is what
 * the broker holds against `message.max.bytes`.
 */
export function recordBytes(record: { readonly key: string; readonly value: string | null; readonly headers: Readonly<Record<string, string>> }): number {
  const headers = Object.entries(record.headers);
  let body = 1 + 10 + 5 + sized(record.key) + sized(record.value) + varintBytes(headers.length);
  for (const [name, value] of headers) body += sized(name) + sized(value);
  return BATCH_OVERHEAD_BYTES + varintBytes(body) + body;
}

/**
 * The bytes of the record that will deliver `draft`, computed as delivery builds it: key the
 * partition key, value the payload's JSON text (none for a null payload), headers `eventHeaders`
 * with the event id at its widest and a traceparent. A merged schd record is the newest event of
 * its key, so this is its size too. A payload with no JSON form counts as none: delivery pins
 * that fault itself.
 */
export function encodedRecordBytes(draft: OutboxEventDraft): number {
  const headers = eventHeaders({ ...draft, eventId: WIDEST_EVENT_ID, traceparent: draft.traceparent || WIDEST_TRACEPARENT });
  return recordBytes({ key: draft.partitionKey, value: jsonOf(draft.payload), headers });
}

function jsonOf(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  try {
    return payloadJson(payload) ?? null;
  } catch {
    return null;
  }
}

/** The first of `events` whose record would be over `limit` bytes, with its size; undefined when all fit. */
export function firstOversized(events: readonly OutboxEventDraft[], limit: number): { readonly event: OutboxEventDraft; readonly bytes: number } | undefined {
  for (const event of events) {
    const bytes = encodedRecordBytes(event);
    if (bytes > limit) return { event, bytes };
  }
  return undefined;
}
