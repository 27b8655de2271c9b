import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * A history row can stand for a run of watchdog alerts on a task pending its callback
 * (`taskEntryCollapsesInto` in `@msgx/tasks`): `repeats` counts them and `first_at` keeps the
 * first one's time, while `version` and `at` move on with the last. Existing rows are single changes.
 */
const UP = [
  `ALTER TABLE task_history
     ADD COLUMN repeats  integer NOT NULL DEFAULT 1 CHECK (repeats >= 1),
     ADD COLUMN first_at timestamptz`,
];

const DOWN = [`ALTER TABLE task_history DROP COLUMN repeats, DROP COLUMN first_at`];

/** In the `task-routing` set as `0031_task_history_repeats`. */
export const taskHistoryRepeatsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
