import { sql } from "kysely";
import type { Db } from "./db.js";

/** Deletes the todos of rows the mailbox confirmed. */
export async function completeBackfill(db: Db, msgIds: readonly number[]): Promise<void> {
  if (msgIds.length === 0) return;
  await sql`DELETE FROM backfill_todo WHERE msg_id = ANY(${[...msgIds]}::bigint[])`.execute(db);
}
