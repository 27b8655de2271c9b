import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The SHA-256 (hex) of the raw text of the message that bound each identity, so that a later
 * message with the same identity can be told apart from an identical re-insert (WIRE.md "SEQN and
 * identity"). Bindings stored before have none (NULL): for them the plain duplicate rule holds.
 */
const UP = [`ALTER TABLE msg_identity ADD COLUMN content_hash text`];

const DOWN = [`ALTER TABLE msg_identity DROP COLUMN content_hash`];

export const identityContentMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
