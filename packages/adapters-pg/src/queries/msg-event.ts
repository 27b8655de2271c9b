import type { DeliveryPlacement, OutboxEvent, OutboxEventDraft, Target } from "@msgx/core";
import { sql } from "kysely";
import { EVENT_COLUMNS, eventFromRow, type EventRow } from "../rows/event-row.js";
import { jsonParam, toNumber } from "../rows/values.js";
import { asyncCommit, type Db } from "./db.js";
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

/** The rows `insertEvents` reads from its one JSON parameter (`jsonb_array_elements`, in order). */
export const eventRowsJson = (events: readonly OutboxEventDraft[]) =>
  events.map((e) => ({
    target: e.target,
    partition_key: e.partitionKey,
    event_type: e.eventType,
    state_version: e.stateVersion,
    // As text: the json column keeps it as written (keys in the payload's own order).
    payload: e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload),
    source_msg_id: e.sourceMsgId,
    traceparent: e.traceparent ?? null,
    headers: e.headers ?? null,
  }));

function insertEventsStatement(events: readonly OutboxEventDraft[], now: number) {
  const rows = eventRowsJson(events);
  return sql`
    INSERT INTO msg_event (target, partition_key, event_type, state_version, payload, source_msg_id, traceparent,
                           headers, status, attempts, created_at)
    SELECT e ->> 'target', e ->> 'partition_key', e ->> 'event_type', (e ->> 'state_version')::bigint,
           (e ->> 'payload')::json, (e ->> 'source_msg_id')::bigint, e ->> 'traceparent',
           NULLIF(e -> 'headers', 'null'::jsonb), 'PENDING', 0, to_timestamp(${now}::bigint / 1000.0)
    FROM jsonb_array_elements(${jsonParam(rows)}::jsonb) WITH ORDINALITY AS t(e, ord)
    ORDER BY t.ord`;
}

/**
 * The PENDING events of `target` in event_id order, at most `limit` (a range scan of the partial
 * index `msg_event_pending_idx`); the store cuts the run with core's `duePrefix`.
 */
export async function pendingEvents(db: Db, target: Target, limit: number, afterEventId = 0): Promise<OutboxEvent[]> {
  const { rows } = await sql<EventRow>`
    SELECT ${sql.raw(EVENT_COLUMNS)} FROM msg_event
    WHERE target = ${target} AND status = 'PENDING' AND event_id > ${afterEventId}::bigint
    ORDER BY event_id LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map(eventFromRow);
}

/** The targets starting with `prefix` that have PENDING rows, ascending (partial index on pending rows). */
export async function pendingTargets(db: Db, prefix: string): Promise<Target[]> {
  const rows = await sql<{ target: Target }>`
    SELECT DISTINCT target FROM msg_event
    WHERE status = 'PENDING' AND starts_with(target, ${prefix}) ORDER BY target`.execute(db);
  return rows.rows.map((r) => r.target);
}

/** The stored events among `eventIds` (any status), ascending. */
export async function getEvents(db: Db, eventIds: readonly number[]): Promise<OutboxEvent[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await sql<EventRow>`
    SELECT ${sql.raw(EVENT_COLUMNS)} FROM msg_event
    WHERE event_id = ANY(${[...eventIds]}::bigint[]) ORDER BY event_id`.execute(db);
  return rows.map(eventFromRow);
}

/** How many events of `target` are PENDING (an index-only count over the partial index). */
export async function countPending(db: Db, target: Target): Promise<number> {
  const { rows } = await sql<{ n: unknown }>`
    SELECT count(*) AS n FROM msg_event WHERE target = ${target} AND status = 'PENDING'`.execute(db);
  return toNumber(rows[0]?.n ?? 0);
}

/**
 * Marks the PENDING events among `eventIds` SENT at `at`, each with its placement
 * (`placements[i]` for `eventIds[i]`, null when missing), in one statement over the unnested id,
 * partition and offset arrays; others untouched, so a SENT row keeps its first placement.
 *
 * The commit is asynchronous (`asyncCommit`): a mark is the relay's bookkeeping after the broker
 * already holds the records, and losing the last few marks in a database crash only resends those
 * records, which delivery allows (at least once, consumers dedupe on the event id). Any later
 * synchronous commit (a pipeline run, a DEAD mark) makes every earlier mark durable too. This
 * takes a WAL flush off every relay batch.
 */
export async function markSent(db: Db, eventIds: readonly number[], at: number, placements: readonly (DeliveryPlacement | null)[] = []): Promise<void> {
  if (eventIds.length === 0) return;
  const partitions = eventIds.map((_, i) => placements[i]?.partition ?? null);
  const offsets = eventIds.map((_, i) => placements[i]?.offset ?? null);
  await sql`
    UPDATE msg_event m SET status = 'SENT', sent_at = to_timestamp(${at}::bigint / 1000.0), next_attempt_at = NULL,
                           kafka_partition = p.kafka_partition, kafka_offset = p.kafka_offset
    FROM ${asyncCommit},
         unnest(${[...eventIds]}::bigint[], ${partitions}::integer[], ${offsets}::bigint[]) AS p(event_id, kafka_partition, kafka_offset)
    WHERE m.event_id = p.event_id AND m.status = 'PENDING'`.execute(db);
}

/** Records a failed delivery try of a PENDING event; it stays PENDING. */
export async function recordFailure(db: Db, eventId: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
  await sql`
    UPDATE msg_event SET attempts = ${attempts}::integer, next_attempt_at = to_timestamp(${nextAttemptAt}::bigint / 1000.0),
                         last_error = ${error}
    WHERE event_id = ${eventId}::bigint AND status = 'PENDING'`.execute(db);
}

/** Ends a PENDING event DEAD; the row stays as the dead-letter record. */
export async function markDead(db: Db, eventId: number, error: string, attempts: number): Promise<void> {
  await sql`
    UPDATE msg_event SET status = 'DEAD', attempts = ${attempts}::integer, next_attempt_at = NULL, last_error = ${error}
    WHERE event_id = ${eventId}::bigint AND status = 'PENDING'`.execute(db);
}
