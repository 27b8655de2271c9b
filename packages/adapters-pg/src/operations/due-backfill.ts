import type { BackfillTodo } from "@msgx/core";
import { sql } from "kysely";
import { backfillFromRow, type BackfillRow } from "../rows/backfill-row.js";
import type { Db } from "./db.js";

/** Todos due at `now`, oldest first (an index range scan of `backfill_todo_due_idx`). */
export async function dueBackfill(db: Db, now: number, limit: number): Promise<BackfillTodo[]> {
  const { rows } = await sql<BackfillRow>`
    SELECT msg_id, processed_at, meta, attempts, next_attempt_at, last_error FROM backfill_todo
    WHERE next_attempt_at <= to_timestamp(${now}::bigint / 1000.0)
    ORDER BY next_attempt_at, msg_id LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map(backfillFromRow);
}
