import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * Subscriptions (fan-out, issue 36 item 1): one row per message and subscription of its queue,
 * written with the message's first send, holding that subscription's own send count, next check,
 * last send's EVENT_ID, rejects, dead flag and last error. Deleted with its message (operator
 * delete, retention purge). The due index serves the recovery job like `reliable_message_due_idx`.
 */
const UP = [
  `CREATE TABLE reliable_message_subscription (
    message_id     text COLLATE "C" NOT NULL REFERENCES reliable_message (message_id) ON DELETE CASCADE,
    subscription   text COLLATE "C" NOT NULL,
    status         text NOT NULL CHECK (status IN ('SENDING','ACKNOWLEDGED')),
    send_count     integer NOT NULL,
    dead           boolean NOT NULL,
    next_check_at  timestamptz,
    last_sent_at   timestamptz,
    last_event_id  bigint,
    reject_count   integer NOT NULL,
    rejected_at    timestamptz,
    last_error     text,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    PRIMARY KEY (message_id, subscription)
  )`,
  `CREATE INDEX reliable_message_subscription_due_idx ON reliable_message_subscription (next_check_at, message_id, subscription)
     WHERE status = 'SENDING' AND NOT dead`,
];

const DOWN = [`DROP TABLE reliable_message_subscription`];

/** In the `reliable-message` set as `0025_reliable_message_subscriptions`. */
export const reliableMessageSubscriptionsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
