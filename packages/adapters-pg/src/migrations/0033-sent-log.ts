import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The relay's sent marks apart from the event rows (issue 32 item 5). A mark inserts one narrow
 * row per event into `msg_event_sent` instead of rewriting the ~1 KB `msg_event` row (whose status
 * change ruled out a HOT update: a new row version and three index entries per event). An event is
 * SENT when its `msg_event` row says so or it has a `msg_event_sent` row; the outbox's fold moves
 * marks into the rows off the relay's path, in one statement, so every reader sees one or the other.
 *
 * `msg_event_state` is that rule as a view: each event with the status, `sent_at`, placement and
 * `next_attempt_at` it has (its columns are the ones of `msg_event` at this version: a migration
 * that adds one to `msg_event` recreates the view). Reads by event id or key go through it; the
 * pending reads stay on `msg_event_pending_idx` and leave out events that have a mark.
 */
const UP = [
  `CREATE TABLE msg_event_sent (
    event_id        bigint      PRIMARY KEY,
    sent_at         timestamptz NOT NULL,
    kafka_partition integer,
    kafka_offset    bigint
  )`,
  // A mark counts only on a PENDING row: a mark left beside a row the fold already moved (a
  // resend's mark racing the fold) never replaces the first placement.
  `CREATE VIEW msg_event_state AS
    SELECT e.event_id, e.target, e.partition_key, e.event_type, e.state_version, e.payload, e.source_msg_id,
           e.traceparent, e.headers,
           CASE WHEN s.marked THEN 'SENT' ELSE e.status END AS status,
           e.attempts,
           CASE WHEN s.marked THEN NULL ELSE e.next_attempt_at END AS next_attempt_at,
           e.last_error, e.created_at,
           CASE WHEN s.marked THEN s.sent_at ELSE e.sent_at END AS sent_at,
           CASE WHEN s.marked THEN s.kafka_partition ELSE e.kafka_partition END AS kafka_partition,
           CASE WHEN s.marked THEN s.kafka_offset ELSE e.kafka_offset END AS kafka_offset
    FROM msg_event e
    LEFT JOIN LATERAL (
      SELECT e.status = 'PENDING' AS marked, x.sent_at, x.kafka_partition, x.kafka_offset
      FROM msg_event_sent x WHERE x.event_id = e.event_id
    ) s ON TRUE`,
];

const DOWN = [`DROP VIEW msg_event_state`, `DROP TABLE msg_event_sent`];

export const sentLogMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
