import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * Task numbers and the seed's places (issue 36 item 9):
 * - `task_task.task_no`, unique: `T` + day + that day's sequence (`@msgx/tasks` `formatTaskNo`).
 *   Tasks created before get one in the same form, by their UTC creation day, in order of
 *   creation, and the counter starts each such day after them;
 * - `task_no_seq`: the last number given out per day; the row's lock is what makes two concurrent
 *   creates take different numbers;
 * - `start_point_code`, `end_point_code`, `vehicle_code` of the create request.
 */
const UP = [
  `ALTER TABLE task_task
     ADD COLUMN task_no          text COLLATE "C",
     ADD COLUMN start_point_code text,
     ADD COLUMN end_point_code   text,
     ADD COLUMN vehicle_code     text`,
  `CREATE TABLE task_no_seq (
    day      text COLLATE "C" PRIMARY KEY CHECK (day ~ '^[0-9]{8}$'),
    last_seq integer NOT NULL CHECK (last_seq >= 1)
  )`,
  `WITH numbered AS (
     SELECT task_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDD') AS day,
            row_number() OVER (PARTITION BY to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDD') ORDER BY created_at, task_id) AS seq
     FROM task_task)
   UPDATE task_task t SET task_no = 'T' || n.day || lpad(n.seq::text, greatest(4, length(n.seq::text)), '0')
   FROM numbered n WHERE t.task_id = n.task_id`,
  `INSERT INTO task_no_seq (day, last_seq)
   SELECT substr(task_no, 2, 8), count(*) FROM task_task GROUP BY substr(task_no, 2, 8)`,
  `ALTER TABLE task_task ALTER COLUMN task_no SET NOT NULL`,
  `CREATE UNIQUE INDEX task_task_task_no_idx ON task_task (task_no)`,
];

const DOWN = [
  `DROP INDEX task_task_task_no_idx`,
  `DROP TABLE task_no_seq`,
  `ALTER TABLE task_task DROP COLUMN task_no, DROP COLUMN start_point_code, DROP COLUMN end_point_code, DROP COLUMN vehicle_code`,
];

/** In the `task-routing` set as `0024_task_numbers`, after `0016_task_routing_service`. */
export const taskNumbersMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
