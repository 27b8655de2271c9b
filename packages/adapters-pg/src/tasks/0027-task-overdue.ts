import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * Deadlines and heartbeats (issue 36 item 7, `@msgx/tasks` `task-overdue.ts`):
 * - `deadline_ms`, `heartbeat_ms`: the task's timeouts, fixed at create (NULL: not watched, as
 *   every task written before);
 * - `deadline_at` (from the first dispatch), `last_progress_at` (the dispatch or last EXECUTING
 *   feedback) and `heartbeat_due_at` (`last_progress_at + heartbeat_ms`, written by the store: an
 *   index cannot compute it, `timestamptz + interval` is not immutable);
 * - the overdue marks `deadline_overdue_at`, `heartbeat_overdue_at` (TASK_OVERDUE published);
 * - the overdue job's probes: DISPATCHED / EXECUTING tasks with an unreported deadline, and with
 *   an unreported heartbeat, each by due time; and the overdue list's (`overdue: true`) by id.
 */
const ACTIVE = `status IN ('DISPATCHED','EXECUTING')`;

const UP = [
  `ALTER TABLE task_task
     ADD COLUMN deadline_ms          bigint CHECK (deadline_ms > 0),
     ADD COLUMN heartbeat_ms         bigint CHECK (heartbeat_ms > 0),
     ADD COLUMN deadline_at          timestamptz,
     ADD COLUMN last_progress_at     timestamptz,
     ADD COLUMN heartbeat_due_at     timestamptz,
     ADD COLUMN deadline_overdue_at  timestamptz,
     ADD COLUMN heartbeat_overdue_at timestamptz`,
  `CREATE INDEX task_task_deadline_due_idx ON task_task (deadline_at, task_id)
     WHERE ${ACTIVE} AND deadline_at IS NOT NULL AND deadline_overdue_at IS NULL`,
  `CREATE INDEX task_task_heartbeat_due_idx ON task_task (heartbeat_due_at, task_id)
     WHERE ${ACTIVE} AND heartbeat_due_at IS NOT NULL AND heartbeat_overdue_at IS NULL`,
  `CREATE INDEX task_task_overdue_idx ON task_task (task_id)
     WHERE ${ACTIVE} AND (deadline_overdue_at IS NOT NULL OR heartbeat_overdue_at IS NOT NULL)`,
];

const DOWN = [
  `DROP INDEX task_task_overdue_idx`,
  `DROP INDEX task_task_heartbeat_due_idx`,
  `DROP INDEX task_task_deadline_due_idx`,
  `ALTER TABLE task_task DROP COLUMN deadline_ms, DROP COLUMN heartbeat_ms, DROP COLUMN deadline_at, DROP COLUMN last_progress_at,
     DROP COLUMN heartbeat_due_at, DROP COLUMN deadline_overdue_at, DROP COLUMN heartbeat_overdue_at`,
];

/** In the `task-routing` set as `0027_task_overdue`, after `0024_task_numbers`. */
export const taskOverdueMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
