import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * Lineage (issue 23): where the broker put each delivered event, and the reads by key.
 * `kafka_partition`/`kafka_offset` are set by the relay's mark-sent from the broker's ack; NULL
 * while the event is unsent, for rows sent before this migration, and where the delivery port
 * cannot tell. `msg_event_key_idx` serves "every event of this FLID / reference key", newest first.
 */
const UP = [
  `ALTER TABLE msg_event ADD COLUMN kafka_partition integer, ADD COLUMN kafka_offset bigint`,
  `CREATE INDEX msg_event_key_idx ON msg_event (partition_key, event_id)`,
];

const DOWN = [`DROP INDEX msg_event_key_idx`, `ALTER TABLE msg_event DROP COLUMN kafka_offset, DROP COLUMN kafka_partition`];

export const lineageMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
