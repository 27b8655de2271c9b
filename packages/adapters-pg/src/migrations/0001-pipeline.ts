import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/** The nullable columns `proc_state` and its archive `proc_state_hst` both have, in this order. */
const PROC_STATE_NULLABLE_COLUMNS = `next_attempt_at timestamptz,
    head_since      timestamptz,
    identity_key    text,
    meta            jsonb,
    error_class     text,
    reason          text,`;

/**
 * Processing state, identities, the outbox, backfill todos, intake, leadership, audit, archive.
 * Times are `timestamptz`; the model's epoch milliseconds convert at the boundary.
 */
const UP = [
  `CREATE TABLE proc_state (
    msg_id          bigint      PRIMARY KEY,
    status          text        NOT NULL CHECK (status IN ('PENDING','FAILED','SUCCEEDED','SKIPPED','DEAD')),
    attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    ${PROC_STATE_NULLABLE_COLUMNS}
    history         jsonb       NOT NULL DEFAULT '[]'::jsonb,
    received_at     timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
  )`,
  // The head is the smallest unfinished id: with this index it is one probe however many
  // terminal rows the table holds (the predicate is repeated verbatim by head/unfinished).
  `CREATE INDEX proc_state_unfinished_idx ON proc_state (msg_id) WHERE status IN ('PENDING','FAILED')`,
  // Dead letters by class, for replay selection and the dead-letter metric.
  `CREATE INDEX proc_state_dead_idx ON proc_state (error_class, msg_id) WHERE status = 'DEAD'`,

  // Apart from proc_state so that archiving terminal rows never loses dedupe (SPEC §2.2).
  `CREATE TABLE msg_identity (
    identity_key text        PRIMARY KEY,
    msg_id       bigint      NOT NULL,
    bound_at     timestamptz NOT NULL
  )`,

  `CREATE TABLE msg_event (
    event_id        bigserial   PRIMARY KEY,
    target          text        NOT NULL,
    partition_key   text        NOT NULL,
    event_type      text        NOT NULL CHECK (event_type IN ('UPSERT','TOMBSTONE')),
    state_version   bigint      NOT NULL,
    payload         jsonb,
    source_msg_id   bigint      NOT NULL,
    traceparent     text,
    status          text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING','SENT','DEAD')),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_error      text,
    created_at      timestamptz NOT NULL,
    sent_at         timestamptz
  )`,
  // The dispatcher reads the pending head of one target in event_id order: a probe into this.
  `CREATE INDEX msg_event_pending_idx ON msg_event (target, event_id) WHERE status = 'PENDING'`,
  `CREATE INDEX msg_event_dead_idx ON msg_event (target, event_id) WHERE status = 'DEAD'`,

  `CREATE TABLE backfill_todo (
    msg_id          bigint      PRIMARY KEY,
    processed_at    timestamptz NOT NULL,
    meta            jsonb,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text
  )`,
  `CREATE INDEX backfill_todo_due_idx ON backfill_todo (next_attempt_at, msg_id)`,

  `CREATE TABLE intake_state (
    id         smallint    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    horizon    bigint      NOT NULL,
    updated_at timestamptz NOT NULL
  )`,

  `CREATE TABLE leadership (
    name        text        PRIMARY KEY,
    epoch       bigint      NOT NULL,
    holder      text,
    acquired_at timestamptz
  )`,
  `INSERT INTO leadership (name, epoch) VALUES ('pipeline', 0)`,

  // Lock, then read the epoch in a new statement of the same function: a VOLATILE function takes
  // a fresh snapshot per statement, so an epoch bumped while we waited for the lock is seen.
  // One round trip instead of two.
  `CREATE FUNCTION msgx_pipeline_epoch(lock_class integer, lock_obj integer) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $fn$
    DECLARE current_epoch bigint;
    BEGIN
      PERFORM pg_advisory_xact_lock(lock_class, lock_obj);
      SELECT epoch INTO current_epoch FROM leadership WHERE name = 'pipeline';
      RETURN coalesce(current_epoch, 0);
    END
  $fn$`,

  `CREATE TABLE replay_audit (
    audit_id bigserial   PRIMARY KEY,
    at       timestamptz NOT NULL,
    operator text        NOT NULL,
    action   text        NOT NULL,
    msg_ids  bigint[]    NOT NULL,
    detail   text        NOT NULL
  )`,

  `CREATE TABLE proc_state_hst (
    msg_id          bigint      PRIMARY KEY,
    status          text        NOT NULL,
    attempts        integer     NOT NULL,
    ${PROC_STATE_NULLABLE_COLUMNS}
    history         jsonb       NOT NULL,
    received_at     timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    archived_at     timestamptz NOT NULL
  )`,
];

const DOWN = [
  "DROP TABLE proc_state_hst",
  "DROP TABLE replay_audit",
  "DROP FUNCTION msgx_pipeline_epoch(integer, integer)",
  "DROP TABLE leadership",
  "DROP TABLE intake_state",
  "DROP TABLE backfill_todo",
  "DROP TABLE msg_event",
  "DROP TABLE msg_identity",
  "DROP TABLE proc_state",
];

export const pipelineMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
