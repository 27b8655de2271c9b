import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The history of each reliable message (issue 36 item 11, its lineage): one row per state change,
 * written in the transaction of the change, keyed by the message's version after it. The rows go
 * with their message (`ON DELETE CASCADE`: the operator delete and the retention purge), and the
 * primary key serves both the read (one message, by version) and the cascade.
 */
const UP = [
  `CREATE TABLE reliable_message_history (
     message_id text COLLATE "C" NOT NULL REFERENCES reliable_message (message_id) ON DELETE CASCADE,
     version    integer     NOT NULL CHECK (version >= 1),
     at         timestamptz NOT NULL,
     from_phase text        NOT NULL,
     to_phase   text        NOT NULL,
     event      text        NOT NULL,
     detail     text,
     cause      jsonb       NOT NULL,
     PRIMARY KEY (message_id, version)
   )`,
];

const DOWN = [`DROP TABLE reliable_message_history`];

/** In the `reliable-message` set as `0028_reliable_message_history`. */
export const reliableMessageHistoryMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
