import { MsgxError, errorMessage } from "../errors/msgx-error.js";
import { EventType, Target, type OutboxEvent } from "../outbox/outbox-event.js";
import type { DeliveryRecord } from "../ports/delivery-port.js";
import { eventHeaders } from "../outbox/event-headers.js";
import { payloadJson } from "../outbox/payload-json.js";

/** Which broker topic each outbox target goes to. */
export type DeliveryTopics = Readonly<Record<string, string>>;

/** SPEC §2: `KAFKA:msg` to topic `msg`, `KAFKA:schd` to topic `schd`; reference data `KAFKA:ref` to `ref`. */
export const DEFAULT_DELIVERY_TOPICS: DeliveryTopics = { [Target.MSG]: "msg", [Target.SCHD]: "schd", [Target.REF]: "ref" };

/** The topic of `target`; a target without one is refused at construction (`CONFIG`). */
export function topicFor(topics: DeliveryTopics, target: Target): string {
  const topic = topics[target];
  if (topic === undefined || topic === "") throw new MsgxError("CONFIG", `no topic configured for delivery target ${target}`);
  return topic;
}

/**
 * A per-event record (`KAFKA:msg`, `KAFKA:ref`): key the partition key (FLID, `<TYPE>:<KEY>`),
 * value the payload JSON (null when the payload is null) — the stored text when the store gave
 * it, so the payload is neither parsed nor serialized again.
 */
export function msgRecord(event: OutboxEvent, topic: string): DeliveryRecord {
  const value = event.payloadJson ?? (event.payload === null || event.payload === undefined ? null : serialize(event));
  return { topic, key: event.partitionKey, value, headers: eventHeaders(event) };
}

/**
 * A `KAFKA:schd` record for the newest event of a FLID: the full latest state, or a null-value
 * tombstone (log compaction then drops the key).
 */
export function schdRecord(newest: OutboxEvent, topic: string): DeliveryRecord {
  const value = newest.eventType === EventType.TOMBSTONE ? null : (newest.payloadJson ?? serialize(newest, newest.payload ?? null));
  return { topic, key: newest.partitionKey, value, headers: eventHeaders(newest) };
}

function serialize(event: OutboxEvent, payload: unknown = event.payload): string {
  try {
    const json = payloadJson(payload);
    if (typeof json !== "string") throw new TypeError("payload has no JSON form");
    return json;
  } catch (e) {
    throw new MsgxError("INFRA", `event ${event.eventId}: payload is not serializable: ${errorMessage(e)}`, { cause: e, retriable: false });
  }
}

/**
 * Builds records for `items` in order, stopping at the first that cannot be built: what comes
 * before it can still go, and the failure is a fault of that one item.
 */
export function buildPrefix<T>(
  items: readonly T[],
  build: (item: T) => DeliveryRecord,
): { readonly records: readonly DeliveryRecord[]; readonly fault: unknown } {
  const records: DeliveryRecord[] = [];
  for (const item of items) {
    try {
      records.push(build(item));
    } catch (e) {
      return { records, fault: e };
    }
  }
  return { records, fault: undefined };
}
