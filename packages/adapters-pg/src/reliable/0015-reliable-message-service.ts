import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The reliable-message service as a service (issue 20):
 * - the terminal statuses ACKNOWLEDGED and CANCELLED (kept until the retention purge, so an id
 *   stays taken for the retention window);
 * - `last_event_id`: the EVENT_ID of the outbox row of the last send, which the recovery job reads
 *   to count only sends the broker acknowledged (NULL for messages from before: treated as sent);
 * - the consumer's rejects (`reject_count`, `rejected_at` while a redelivery is pending) and
 *   `last_error` (reject or dead reason);
 * - the producer's `check_delay_ms` and application `headers` (a JSON object of strings);
 * - the purge's index: only finished rows, by last change, so the purge never reads live ones.
 */
const UP = [
  `ALTER TABLE reliable_message DROP CONSTRAINT reliable_message_status_check`,
  `ALTER TABLE reliable_message ADD CONSTRAINT reliable_message_status_check
     CHECK (status IN ('WAITING_CONFIRM','SENDING','ACKNOWLEDGED','CANCELLED'))`,
  `ALTER TABLE reliable_message
     ADD COLUMN last_event_id  bigint,
     ADD COLUMN reject_count   integer NOT NULL DEFAULT 0 CHECK (reject_count >= 0),
     ADD COLUMN rejected_at    timestamptz,
     ADD COLUMN last_error     text,
     ADD COLUMN check_delay_ms bigint CHECK (check_delay_ms >= 0),
     ADD COLUMN headers        jsonb`,
  // Ordered by updated_at alone (not (status, updated_at)): the purge takes the oldest finished rows
  // of both statuses in one ordered index range.
  `CREATE INDEX reliable_message_finished_idx ON reliable_message (updated_at, message_id) WHERE status IN ('ACKNOWLEDGED','CANCELLED')`,
];

const DOWN = [
  `DROP INDEX reliable_message_finished_idx`,
  `DELETE FROM reliable_message WHERE status IN ('ACKNOWLEDGED','CANCELLED')`,
  `ALTER TABLE reliable_message DROP COLUMN last_event_id, DROP COLUMN reject_count, DROP COLUMN rejected_at,
     DROP COLUMN last_error, DROP COLUMN check_delay_ms, DROP COLUMN headers`,
  `ALTER TABLE reliable_message DROP CONSTRAINT reliable_message_status_check`,
  `ALTER TABLE reliable_message ADD CONSTRAINT reliable_message_status_check CHECK (status IN ('WAITING_CONFIRM','SENDING'))`,
];

/** In the `reliable-message` set as `0015_reliable_message_service`. */
export const reliableMessageServiceMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
