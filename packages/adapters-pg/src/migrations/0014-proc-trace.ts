import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The W3C `traceparent` of each message's intake span, kept with its processing record (the
 * upstream mailbox is not ours, so it cannot carry one) and moved with it to the archive. NULL for
 * a record enqueued before, or without tracing: the pump then starts the message's trace.
 */
const UP = [`ALTER TABLE proc_state ADD COLUMN traceparent text`, `ALTER TABLE proc_state_hst ADD COLUMN traceparent text`];

const DOWN = [`ALTER TABLE proc_state_hst DROP COLUMN traceparent`, `ALTER TABLE proc_state DROP COLUMN traceparent`];

export const procTraceMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
