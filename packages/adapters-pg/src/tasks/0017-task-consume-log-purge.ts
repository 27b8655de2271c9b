import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The owner side's consume-log retention (issue 21): `PgTaskConsumeLogStore.purge` deletes
 * SUCCEEDED rows with nothing left to report (callback SENT, or none for progress events), oldest
 * change first. Its index holds only those rows, by last change, so the purge reads one ordered
 * index range and never the dead letters, failures or undelivered reports it must keep. Like
 * `taskConsumeLogMigration` it is for the owner's own migrator, after that one; without it the
 * purge is correct but scans the table.
 */
const UP = [
  `CREATE INDEX task_event_consume_log_purge_idx ON task_event_consume_log (updated_at, event_id)
     WHERE status = 'SUCCEEDED' AND (callback_status IS NULL OR callback_status = 'SENT')`,
];

export const taskConsumeLogPurgeMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, ["DROP INDEX task_event_consume_log_purge_idx"]),
});
