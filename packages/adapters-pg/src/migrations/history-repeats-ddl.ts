import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The migration that lets a row of a history table (`reliable_message_history`, `task_history`)
 * stand for a run of identical changes: `repeats` counts them and `first_at` keeps the first one's
 * time, while `version` and `at` move on with the last. Existing rows are single changes.
 */
export const historyRepeatsMigration = (table: string, schema: string): Migration => ({
  up: (db: Kysely<unknown>) =>
    runDdl(db, schema, [
      `ALTER TABLE ${table}
     ADD COLUMN repeats  integer NOT NULL DEFAULT 1 CHECK (repeats >= 1),
     ADD COLUMN first_at timestamptz`,
    ]),
  down: (db: Kysely<unknown>) => runDdl(db, schema, [`ALTER TABLE ${table} DROP COLUMN repeats, DROP COLUMN first_at`]),
});
