import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The history of each task (issue 36 item 11, its lineage): one row per change, written in the
 * transaction of the change, keyed by the task's version after it. The rows go with their task
 * (`ON DELETE CASCADE`: the retention purge), and the primary key serves the read and the cascade.
 */
const UP = [
  `CREATE TABLE task_history (
     task_id    text COLLATE "C" NOT NULL REFERENCES task_task (task_id) ON DELETE CASCADE,
     version    integer     NOT NULL CHECK (version >= 1),
     at         timestamptz NOT NULL,
     from_status text,
     to_status  text        NOT NULL,
     cause      jsonb       NOT NULL,
     caller     jsonb,
     detail     text,
     PRIMARY KEY (task_id, version)
   )`,
];

const DOWN = [`DROP TABLE task_history`];

/** In the `task-routing` set as `0029_task_history`. */
export const taskHistoryMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
