import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The outbox payload as `json` (text, kept as written) instead of `jsonb`: the relay reads back
 * exactly the JSON the pipeline wrote — keys in the order `flightToPayload` gives them, which the
 * broker record then carries — and PostgreSQL neither builds a binary document on insert nor
 * prints one on every read. No statement uses jsonb operators on it. Rows written before keep
 * jsonb's text form (same values, keys in jsonb's order).
 */
const UP = [`ALTER TABLE msg_event ALTER COLUMN payload TYPE json USING payload::json`];

const DOWN = [`ALTER TABLE msg_event ALTER COLUMN payload TYPE jsonb USING payload::jsonb`];

export const outboxJsonMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
