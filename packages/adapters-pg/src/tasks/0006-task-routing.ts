import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The task service's tables (seed 001 `task_task` and its logs), beside `msg_event`: a task's
 * status change, its feedback row and its outbox row commit in one transaction. Ids and codes
 * sort by code point (`COLLATE "C"`), as the store's listings promise.
 */
const TASK_SERVICE_UP = [
  `CREATE TABLE task_task (
    task_id            text COLLATE "C" PRIMARY KEY,
    owner_service      text COLLATE "C" NOT NULL,
    handler_code       text COLLATE "C" NOT NULL,
    biz_type           text        NOT NULL,
    biz_id             text        NOT NULL,
    external_system    text        NOT NULL,
    external_task_type text,
    external_task_no   text,
    payload            jsonb       NOT NULL DEFAULT '{}'::jsonb,
    status             text        NOT NULL CHECK (status IN ('CREATED','DISPATCHED','EXECUTING','FINISHED_PENDING_CALLBACK',
                                                              'FINISHED','CANCEL_PENDING_CALLBACK','CANCELLED')),
    version            integer     NOT NULL CHECK (version >= 1),
    last_event_id      text,
    status_reason      text,
    callback_error     text,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
  )`,
  // Tasks waiting for their owner, oldest first: the "stuck in *_PENDING_CALLBACK" probe.
  `CREATE INDEX task_task_pending_callback_idx ON task_task (updated_at, task_id)
     WHERE status IN ('FINISHED_PENDING_CALLBACK','CANCEL_PENDING_CALLBACK')`,
  `CREATE INDEX task_task_owner_idx ON task_task (owner_service, status, task_id)`,

  // The feedback log: idempotence of external reports (seed 001 §13.1).
  `CREATE TABLE task_feedback (
    feedback_id       bigserial   PRIMARY KEY,
    task_id           text COLLATE "C" NOT NULL REFERENCES task_task (task_id),
    external_event_id text        NOT NULL,
    status            text        NOT NULL CHECK (status IN ('EXECUTING','FINISHED','CANCELLED')),
    outcome           text        NOT NULL CHECK (outcome IN ('APPLIED','IGNORED','REJECTED')),
    reason            text,
    event_id          text,
    received_at       timestamptz NOT NULL,
    CONSTRAINT task_feedback_key UNIQUE (task_id, external_event_id, status)
  )`,

  // Every callback an owner sent, repeats included.
  `CREATE TABLE task_callback (
    callback_id bigserial   PRIMARY KEY,
    task_id     text COLLATE "C" NOT NULL REFERENCES task_task (task_id),
    event_id    text        NOT NULL,
    result      text        NOT NULL CHECK (result IN ('SUCCESS','FAILURE')),
    message     text,
    outcome     text        NOT NULL CHECK (outcome IN ('APPLIED','RECORDED','DUPLICATE','REJECTED')),
    reason      text,
    received_at timestamptz NOT NULL
  )`,
  `CREATE INDEX task_callback_task_idx ON task_callback (task_id, callback_id)`,
];

const TASK_SERVICE_DOWN = ["DROP TABLE task_callback", "DROP TABLE task_feedback", "DROP TABLE task_task"];

/**
 * The task service side, in `TASK_ROUTING_MIGRATIONS` after `0001_pipeline` (it writes
 * `msg_event`) as `0006_task_routing`.
 */
export const taskRoutingMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, TASK_SERVICE_UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, TASK_SERVICE_DOWN),
});

/**
 * The owner side (seed 001 §13.2 `biz_task_event_consume_log`): one row per task event an owner
 * took on. It lives in the owner service's own database, beside its business tables, so it is a
 * migration of its own for the owner's migrator (like `reliableMessageConsumeLogMigration`).
 */
const CONSUME_LOG_UP = [
  `CREATE TABLE task_event_consume_log (
    event_id           text COLLATE "C" PRIMARY KEY,
    task_id            text COLLATE "C" NOT NULL,
    owner_service      text        NOT NULL,
    handler_code       text        NOT NULL,
    event_type         text        NOT NULL,
    status             text        NOT NULL CHECK (status IN ('SUCCEEDED','FAILED','DEAD')),
    error_msg          text,
    attempts           integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at    timestamptz,
    payload            jsonb,
    delivery_event_id  text,
    callback_status    text        CHECK (callback_status IN ('PENDING','SENT','REJECTED')),
    callback_attempts  integer     NOT NULL DEFAULT 0 CHECK (callback_attempts >= 0),
    callback_next_at   timestamptz,
    callback_error     text,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
  )`,
  // The callback sender's probe: only undelivered reports are in it.
  `CREATE INDEX task_event_consume_log_callback_idx ON task_event_consume_log (callback_next_at, event_id)
     WHERE callback_status = 'PENDING'`,
  // Dead letters and failures for review (and the dead-letter metric).
  `CREATE INDEX task_event_consume_log_status_idx ON task_event_consume_log (status, event_id) WHERE status <> 'SUCCEEDED'`,
  `CREATE INDEX task_event_consume_log_task_idx ON task_event_consume_log (task_id)`,
];

export const taskConsumeLogMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, CONSUME_LOG_UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, ["DROP TABLE task_event_consume_log"]),
});
