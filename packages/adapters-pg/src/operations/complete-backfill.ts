import { sql } from "kysely";
import type { Db } from "./db.js";

/**
 * Deletes the todos of rows the mailbox confirmed, in one autocommit statement whose commit is
 * asynchronous (`synchronous_commit = off` for this transaction only, set inside the statement):
 * it skips a WAL flush the pump would otherwise wait for after every run. Safe because a delete
 * lost in a crash only brings the todo back, and the sweep's backfill is idempotent.
 */
export async function completeBackfill(db: Db, msgIds: readonly number[]): Promise<void> {
  if (msgIds.length === 0) return;
  await sql`
    WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)
    DELETE FROM backfill_todo
    WHERE msg_id = ANY(${[...msgIds]}::bigint[]) AND (SELECT setting FROM async_commit) = 'off'`.execute(db);
}
