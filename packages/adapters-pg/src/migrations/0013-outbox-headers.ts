import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The extra record headers an outbox row carries (`OutboxEventDraft.headers`: a task event's
 * owner, for one), as a JSON object of strings; NULL for a row without any. The relay sends them
 * as stored beside its own. Rows written before have none.
 */
const UP = [`ALTER TABLE msg_event ADD COLUMN headers jsonb`];

const DOWN = [`ALTER TABLE msg_event DROP COLUMN headers`];

export const outboxHeadersMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
