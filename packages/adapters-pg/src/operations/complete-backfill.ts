import { sql } from "kysely";
import { asyncCommit } from "./async-commit.js";
import type { Db } from "./db.js";

/**
 * Deletes the todos of rows the mailbox confirmed, in one autocommit statement whose commit is
 * asynchronous (`asyncCommit`): it skips a WAL flush the pump would otherwise wait for after
 * every run. Safe because a delete lost in a crash only brings the todo back, and the sweep's
 * backfill is idempotent.
 */
export async function completeBackfill(db: Db, msgIds: readonly number[]): Promise<void> {
  if (msgIds.length === 0) return;
  await sql`
    DELETE FROM backfill_todo USING ${asyncCommit}
    WHERE msg_id = ANY(${[...msgIds]}::bigint[])`.execute(db);
}
