import type { OutboxEventDraft } from "@msgx/core";
import { sql } from "kysely";
import { jsonParam, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import type { WritePart } from "./write-part.js";

/**
 * Appends outbox rows (PENDING) in one INSERT … SELECT ordered by position, so `event_id`s are
 * drawn from the sequence in the given order. Returns them, ascending. Ids may have gaps: a
 * rolled-back transaction still consumed its sequence values.
 */
export async function insertEvents(db: Db, events: readonly OutboxEventDraft[], now: number): Promise<number[]> {
  if (events.length === 0) return [];
  const { rows: inserted } = await sql<{ event_id: unknown }>`${insertEventsStatement(events, now)} RETURNING event_id`.execute(db);
  return inserted.map((r) => toNumber(r.event_id)).sort((a, b) => a - b);
}

/** `insertEvents` as a part of a combined write (the ids are not returned). */
export function insertEventsParts(events: readonly OutboxEventDraft[], now: number): WritePart[] {
  return events.length === 0 ? [] : [{ name: "ins_msg_event", body: insertEventsStatement(events, now) }];
}

function insertEventsStatement(events: readonly OutboxEventDraft[], now: number) {
  const rows = events.map((e) => ({
    target: e.target,
    partition_key: e.partitionKey,
    event_type: e.eventType,
    state_version: e.stateVersion,
    // As text: the json column keeps it as written (keys in the payload's own order).
    payload: e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload),
    source_msg_id: e.sourceMsgId,
    traceparent: e.traceparent ?? null,
  }));
  return sql`
    INSERT INTO msg_event (target, partition_key, event_type, state_version, payload, source_msg_id, traceparent,
                           status, attempts, created_at)
    SELECT e ->> 'target', e ->> 'partition_key', e ->> 'event_type', (e ->> 'state_version')::bigint,
           (e ->> 'payload')::json, (e ->> 'source_msg_id')::bigint, e ->> 'traceparent',
           'PENDING', 0, to_timestamp(${now}::bigint / 1000.0)
    FROM jsonb_array_elements(${jsonParam(rows)}::jsonb) WITH ORDINALITY AS t(e, ord)
    ORDER BY t.ord`;
}
