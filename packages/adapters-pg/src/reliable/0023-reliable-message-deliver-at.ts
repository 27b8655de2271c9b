import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The delivery time asked for at the prepare (issue 36 item 2): `deliver_at`, NULL for "at the
 * confirm" (every row from before).
 */
const UP = [`ALTER TABLE reliable_message ADD COLUMN deliver_at timestamptz`];

const DOWN = [`ALTER TABLE reliable_message DROP COLUMN deliver_at`];

/** In the `reliable-message` set as `0023_reliable_message_deliver_at`. */
export const reliableMessageDeliverAtMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
