import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The reliable-message service's table (seed 002 `rp_transaction_message`), beside `msg_event`
 * (the outbox its sends go to). Ids and queues sort by code point (`COLLATE "C"`), as the store
 * port's keyset scan requires. Seed column → here: `message_send_times` → `send_count` (sends,
 * not resends), `areadly_dead` → `dead`, `edit_time` → `updated_at` (and `last_sent_at` for the
 * schedule); `id`, `creater`, `editor` are not kept (the message id is the key).
 */
const UP = [
  `CREATE TABLE reliable_message (
    message_id        text COLLATE "C" PRIMARY KEY,
    version           integer     NOT NULL CHECK (version >= 1),
    message_body      text        NOT NULL,
    message_data_type text,
    consumer_queue    text COLLATE "C" NOT NULL,
    status            text        NOT NULL CHECK (status IN ('WAITING_CONFIRM','SENDING')),
    send_count        integer     NOT NULL DEFAULT 0 CHECK (send_count >= 0),
    dead              boolean     NOT NULL DEFAULT false,
    check_count       integer     NOT NULL DEFAULT 0 CHECK (check_count >= 0),
    next_check_at     timestamptz,
    last_sent_at      timestamptz,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    confirmed_at      timestamptz,
    remark            text,
    field1            text,
    field2            text,
    field3            text
  )`,
  // The jobs' probe: due messages of one status, oldest check time first; dead ones are not in it.
  `CREATE INDEX reliable_message_due_idx ON reliable_message (status, next_check_at, message_id) WHERE NOT dead`,
  // Bulk resend of a queue's dead letters and per-queue listings.
  `CREATE INDEX reliable_message_queue_idx ON reliable_message (consumer_queue, dead, message_id)`,
  // The paged listing's order.
  `CREATE INDEX reliable_message_created_idx ON reliable_message (created_at, message_id)`,
];

const DOWN = ["DROP TABLE reliable_message"];

/** The service side, in `RELIABLE_MESSAGE_MIGRATIONS` as `0005_reliable_message`. */
export const reliableMessageMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});

const CONSUMER_UP = [
  `CREATE TABLE reliable_message_consume_log (
    message_id     text COLLATE "C" PRIMARY KEY,
    consumer_queue text        NOT NULL,
    send_count     integer     NOT NULL,
    consumed_at    timestamptz NOT NULL
  )`,
  `CREATE INDEX reliable_message_consume_log_at_idx ON reliable_message_consume_log (consumed_at)`,
];

/**
 * The consumer side: the consume log `PgConsumeLog` claims message ids in. It lives in the
 * consumer's own database (beside its business tables), so it is a migration of its own for the
 * consumer's migrator, not part of the msgx list.
 */
export const reliableMessageConsumeLogMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, CONSUMER_UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, ["DROP TABLE reliable_message_consume_log"]),
});
