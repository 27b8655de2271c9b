import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * Per-key order (issue 36 item 3): the producer's business key (`message_key`, code-point
 * ordered like the ids) and the confirm sequence of a message of an ordered queue (`order_seq`,
 * from `reliable_message_order_seq`; NULL for every row from before and for unordered messages).
 * The index serves the one predicate "an older message of the key is not finished"
 * (`heldByKeySql`): only unfinished rows, so finished history never slows it.
 */
const UP = [
  `ALTER TABLE reliable_message ADD COLUMN message_key text COLLATE "C", ADD COLUMN order_seq bigint`,
  `CREATE SEQUENCE reliable_message_order_seq`,
  `CREATE INDEX reliable_message_key_order_idx ON reliable_message (consumer_queue, message_key, order_seq)
     WHERE order_seq IS NOT NULL AND status NOT IN ('ACKNOWLEDGED','CANCELLED')`,
];

const DOWN = [
  `DROP INDEX reliable_message_key_order_idx`,
  `DROP SEQUENCE reliable_message_order_seq`,
  `ALTER TABLE reliable_message DROP COLUMN message_key, DROP COLUMN order_seq`,
];

/** In the `reliable-message` set as `0026_reliable_message_key_order`. */
export const reliableMessageKeyOrderMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
