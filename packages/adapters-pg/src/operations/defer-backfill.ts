import type { BackfillTodo } from "@msgx/core";
import { sql } from "kysely";
import { jsonParam } from "../rows/values.js";
import type { Db } from "./db.js";

/** Records failed tries in one multi-row UPDATE; todos completed meanwhile stay gone. */
export async function deferBackfill(db: Db, todos: readonly BackfillTodo[]): Promise<void> {
  if (todos.length === 0) return;
  const byId = new Map(todos.map((t) => [t.msgId, t]));
  const rows = [...byId.values()].map((t) => ({
    msg_id: t.msgId,
    processed_at: t.processedAt,
    meta: t.meta,
    attempts: t.attempts,
    next_attempt_at: t.nextAttemptAt,
    last_error: t.lastError,
  }));
  await sql`
    UPDATE backfill_todo b SET
      processed_at = to_timestamp(x.processed_at / 1000.0), meta = x.meta, attempts = x.attempts,
      next_attempt_at = to_timestamp(x.next_attempt_at / 1000.0), last_error = x.last_error
    FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(
      msg_id bigint, processed_at bigint, meta jsonb, attempts integer, next_attempt_at bigint, last_error text)
    WHERE b.msg_id = x.msg_id`.execute(db);
}
