import { payloadJson, type DeliveryPlacement, type OutboxEvent, type OutboxEventDraft, type SentMark, type Target } from "@msgx/core";
import { sql } from "kysely";
import { EVENT_COLUMNS, eventFromRow, PENDING_EVENT_COLUMNS, pendingEventFromRow, type EventRow, type PendingEventRow } from "../rows/event-row.js";
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
    payload: e.payload === undefined || e.payload === null ? null : payloadJson(e.payload),
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
 * An event with no sent mark: `m` is a `msg_event` row whose status is PENDING, marked SENT in
 * `msg_event_sent` until the fold moves the mark into the row (migration `0033_sent_log`).
 * `OFFSET 0` keeps it a probe of the mark's primary key per row the index scan yields: as a join,
 * the planner merges with every mark from the lowest one up, whatever the scan's start.
 */
const UNMARKED = sql`NOT EXISTS (SELECT 1 FROM msg_event_sent s WHERE s.event_id = m.event_id OFFSET 0)`;

/**
 * The PENDING events of `target` in event_id order, at most `limit` (a range scan of the partial
 * index `msg_event_pending_idx`, leaving out events with a sent mark); the store cuts the run
 * with core's `duePrefix`.
 */
export async function pendingEvents(db: Db, target: Target, limit: number, afterEventId = 0): Promise<OutboxEvent[]> {
  const { rows } = await pendingStatement(target, limit, afterEventId).execute(db);
  return rows.map(pendingEventFromRow(target));
}

function pendingStatement(target: Target, limit: number, afterEventId: number) {
  return sql<PendingEventRow>`
    SELECT ${sql.raw(PENDING_EVENT_COLUMNS)} FROM msg_event m
    WHERE target = ${target} AND status = 'PENDING' AND event_id > ${afterEventId}::bigint AND ${UNMARKED}
    ORDER BY event_id LIMIT ${Math.max(0, limit)}::bigint`;
}

/** The targets starting with `prefix` that have PENDING rows, ascending (partial index on pending rows). */
export async function pendingTargets(db: Db, prefix: string): Promise<Target[]> {
  const rows = await sql<{ target: Target }>`
    SELECT DISTINCT target FROM msg_event m
    WHERE status = 'PENDING' AND starts_with(target, ${prefix}) AND ${UNMARKED} ORDER BY target`.execute(db);
  return rows.rows.map((r) => r.target);
}

/** The stored events among `eventIds` (any status, sent marks included), ascending. */
export async function getEvents(db: Db, eventIds: readonly number[]): Promise<OutboxEvent[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await sql<EventRow>`
    SELECT ${sql.raw(EVENT_COLUMNS)} FROM msg_event_state
    WHERE event_id = ANY(${[...eventIds]}::bigint[]) ORDER BY event_id`.execute(db);
  return rows.map(eventFromRow);
}

/** How many events of `target` are PENDING (over the partial index, less the marked ones). */
export async function countPending(db: Db, target: Target): Promise<number> {
  const { rows } = await sql<{ n: unknown }>`
    SELECT count(*) AS n FROM msg_event m WHERE target = ${target} AND status = 'PENDING' AND ${UNMARKED}`.execute(db);
  return toNumber(rows[0]?.n ?? 0);
}

/**
 * Marks the PENDING events among `eventIds` SENT at `at`, each with its placement
 * (`placements[i]` for `eventIds[i]`, null when missing), in one statement: a narrow row each in
 * `msg_event_sent` (the event row is not rewritten); unknown, SENT (marked or folded) and DEAD
 * events are left alone, so a SENT event keeps its first placement.
 *
 * The commit is asynchronous (`asyncCommit`): a mark is the relay's bookkeeping after the broker
 * already holds the records, and losing the last few marks in a database crash only resends those
 * records, which delivery allows (at least once, consumers dedupe on the event id). Any later
 * synchronous commit (a pipeline run, a DEAD mark) makes every earlier mark durable too. This
 * takes a WAL flush off every relay batch.
 */
export async function markSent(db: Db, eventIds: readonly number[], at: number, placements: readonly (DeliveryPlacement | null)[] = []): Promise<void> {
  if (eventIds.length === 0) return;
  await markStatement(eventIds, at, placements).execute(db);
}

/**
 * `markSent` and then `pendingEvents(target, limit, afterEventId)`, as one statement: the mark is a
 * data-modifying CTE, the read sees the snapshot the statement started with. The read is of
 * events above `afterEventId`, which the store checks is above every marked id, so the mark
 * cannot change it.
 */
export async function markSentAndRead(
  db: Db,
  mark: SentMark,
  target: Target,
  limit: number,
  afterEventId: number,
): Promise<OutboxEvent[]> {
  if (mark.eventIds.length === 0) return pendingEvents(db, target, limit, afterEventId);
  const { rows } = await sql<PendingEventRow>`
    WITH mark AS (${markStatement(mark.eventIds, mark.at, mark.placements ?? [])})
    ${pendingStatement(target, limit, afterEventId)}`.execute(db);
  return rows.map(pendingEventFromRow(target));
}

function markStatement(eventIds: readonly number[], at: number, placements: readonly (DeliveryPlacement | null)[]) {
  const partitions = eventIds.map((_, i) => placements[i]?.partition ?? null);
  const offsets = eventIds.map((_, i) => placements[i]?.offset ?? null);
  return sql`
    INSERT INTO msg_event_sent (event_id, sent_at, kafka_partition, kafka_offset)
    SELECT p.event_id, to_timestamp(${at}::bigint / 1000.0), p.kafka_partition, p.kafka_offset
    FROM ${asyncCommit},
         unnest(${[...eventIds]}::bigint[], ${partitions}::integer[], ${offsets}::bigint[]) AS p(event_id, kafka_partition, kafka_offset)
    JOIN msg_event m ON m.event_id = p.event_id AND m.status = 'PENDING'
    ON CONFLICT (event_id) DO NOTHING`;
}

/**
 * Moves up to `limit` sent marks (oldest first) into their event rows (status SENT, `sent_at`,
 * placement, no `next_attempt_at`) and deletes them, in one statement: a reader sees each event
 * either marked or folded, SENT both ways. Returns how many marks it moved. This is the row
 * rewrite a mark used to be, done off the relay's path and in larger batches.
 */
export async function foldSent(db: Db, limit: number): Promise<number> {
  const { rows } = await sql<{ n: unknown }>`
    WITH moved AS (
      DELETE FROM msg_event_sent WHERE event_id IN (SELECT event_id FROM msg_event_sent ORDER BY event_id LIMIT ${Math.max(0, limit)}::bigint)
      RETURNING event_id, sent_at, kafka_partition, kafka_offset
    ), folded AS (
      UPDATE msg_event m SET status = 'SENT', sent_at = moved.sent_at, next_attempt_at = NULL,
                             kafka_partition = moved.kafka_partition, kafka_offset = moved.kafka_offset
      FROM moved WHERE m.event_id = moved.event_id AND m.status = 'PENDING'
    )
    SELECT count(*) AS n FROM moved`.execute(db);
  return toNumber(rows[0]?.n ?? 0);
}

/** Records a failed delivery try of a PENDING event without a sent mark; it stays PENDING. */
export async function recordFailure(db: Db, eventId: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
  await sql`
    UPDATE msg_event m SET attempts = ${attempts}::integer, next_attempt_at = to_timestamp(${nextAttemptAt}::bigint / 1000.0),
                           last_error = ${error}
    WHERE event_id = ${eventId}::bigint AND status = 'PENDING' AND ${UNMARKED}`.execute(db);
}

/** Ends a PENDING event without a sent mark DEAD; the row stays as the dead-letter record. */
export async function markDead(db: Db, eventId: number, error: string, attempts: number): Promise<void> {
  await sql`
    UPDATE msg_event m SET status = 'DEAD', attempts = ${attempts}::integer, next_attempt_at = NULL, last_error = ${error}
    WHERE event_id = ${eventId}::bigint AND status = 'PENDING' AND ${UNMARKED}`.execute(db);
}
