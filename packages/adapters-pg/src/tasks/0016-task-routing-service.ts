import type { Kysely, Migration } from "kysely";
import { runDdl } from "../migrations/ddl.js";

/**
 * The task service as a service (issue 21):
 * - status FAILED (the external system refused the dispatch for good);
 * - dispatch bookkeeping: `dispatch_attempts`, `next_dispatch_at` (NULL when the task does not
 *   wait for the dispatch job: tasks from before, or dispatched by their caller), `dispatch_error`;
 * - the watchdog's `callback_alerts` / `callback_alert_at`;
 * - the dispatch job's probe: only CREATED tasks waiting for a dispatch, by due time;
 * - the retention purge's probe: only finished tasks, by last change;
 * - `task_replay`: the audit of replays of dead owner events.
 * The watchdog's probe is the existing pending-callback index (`updated_at, task_id`).
 */
const UP = [
  `ALTER TABLE task_task DROP CONSTRAINT task_task_status_check`,
  `ALTER TABLE task_task ADD CONSTRAINT task_task_status_check
     CHECK (status IN ('CREATED','DISPATCHED','EXECUTING','FINISHED_PENDING_CALLBACK','FINISHED','CANCEL_PENDING_CALLBACK','CANCELLED','FAILED'))`,
  `ALTER TABLE task_task
     ADD COLUMN dispatch_attempts integer NOT NULL DEFAULT 0 CHECK (dispatch_attempts >= 0),
     ADD COLUMN next_dispatch_at  timestamptz,
     ADD COLUMN dispatch_error    text,
     ADD COLUMN callback_alerts   integer NOT NULL DEFAULT 0 CHECK (callback_alerts >= 0),
     ADD COLUMN callback_alert_at timestamptz`,
  `CREATE INDEX task_task_dispatch_due_idx ON task_task (next_dispatch_at, task_id)
     WHERE status = 'CREATED' AND next_dispatch_at IS NOT NULL`,
  `CREATE INDEX task_task_finished_idx ON task_task (updated_at, task_id) WHERE status IN ('FINISHED','CANCELLED','FAILED')`,
  `CREATE TABLE task_replay (
    replay_id  text COLLATE "C" PRIMARY KEY,
    replayed_by text       NOT NULL,
    reason     text        NOT NULL,
    filter     jsonb       NOT NULL,
    task_ids   jsonb       NOT NULL,
    replayed_at timestamptz NOT NULL
  )`,
];

const DOWN = [
  `DROP TABLE task_replay`,
  `DROP INDEX task_task_finished_idx`,
  `DROP INDEX task_task_dispatch_due_idx`,
  `DELETE FROM task_callback WHERE task_id IN (SELECT task_id FROM task_task WHERE status = 'FAILED')`,
  `DELETE FROM task_feedback WHERE task_id IN (SELECT task_id FROM task_task WHERE status = 'FAILED')`,
  `DELETE FROM task_task WHERE status = 'FAILED'`,
  `ALTER TABLE task_task DROP COLUMN dispatch_attempts, DROP COLUMN next_dispatch_at, DROP COLUMN dispatch_error,
     DROP COLUMN callback_alerts, DROP COLUMN callback_alert_at`,
  `ALTER TABLE task_task DROP CONSTRAINT task_task_status_check`,
  `ALTER TABLE task_task ADD CONSTRAINT task_task_status_check
     CHECK (status IN ('CREATED','DISPATCHED','EXECUTING','FINISHED_PENDING_CALLBACK','FINISHED','CANCEL_PENDING_CALLBACK','CANCELLED'))`,
];

/** In the `task-routing` set as `0016_task_routing_service`, after `0006_task_routing`. */
export const taskRoutingServiceMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
