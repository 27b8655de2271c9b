import type { BackfillEntry, BackfillTodo } from "@msgx/core";
import { sql } from "kysely";
import { backfillFromRow, type BackfillRow } from "../rows/backfill-row.js";
import { jsonParam, toNumber } from "../rows/values.js";
import { asyncCommit, type Db } from "./db.js";
import type { WritePart } from "./write-part.js";

/**
 * Registers backfill todos in one multi-row upsert. The first try is the pump's, right after
 * commit; the sweep only sees a todo after `firstDelayMs`.
 */
export function registerBackfillParts(entries: readonly BackfillEntry[], now: number, firstDelayMs: number): WritePart[] {
  if (entries.length === 0) return [];
  // One row per id, the last one winning: an upsert may not touch a row twice in one statement.
  const byId = new Map(entries.map((e) => [e.msgId, e]));
  const rows = [...byId.values()].map((e) => ({ msg_id: e.msgId, processed_at: e.processedAt, meta: e.meta }));
  return [
    {
      name: "ups_backfill_todo",
      body: sql`
        INSERT INTO backfill_todo (msg_id, processed_at, meta, attempts, next_attempt_at, last_error)
        SELECT x.msg_id, to_timestamp(x.processed_at / 1000.0), x.meta, 0, to_timestamp(${now + firstDelayMs}::bigint / 1000.0), NULL
        FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(msg_id bigint, processed_at bigint, meta jsonb)
        ON CONFLICT (msg_id) DO UPDATE SET
          processed_at = EXCLUDED.processed_at, meta = EXCLUDED.meta, attempts = 0,
          next_attempt_at = EXCLUDED.next_attempt_at, last_error = NULL`,
    },
  ];
}

/** Todos due at `now`, oldest first (an index range scan of `backfill_todo_due_idx`). */
export async function dueBackfill(db: Db, now: number, limit: number): Promise<BackfillTodo[]> {
  const { rows } = await sql<BackfillRow>`
    SELECT msg_id, processed_at, meta, attempts, next_attempt_at, last_error FROM backfill_todo
    WHERE next_attempt_at <= to_timestamp(${now}::bigint / 1000.0)
    ORDER BY next_attempt_at, msg_id LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map(backfillFromRow);
}

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

/**
 * A todo, due at `now`, for each of `msgIds` that is terminal (live or archived) and has none:
 * `processed_at` and `meta` from the record. One statement; returns the ids registered, ascending.
 */
export async function registerMissingBackfill(db: Db, msgIds: readonly number[], now: number): Promise<number[]> {
  if (msgIds.length === 0) return [];
  const ids = [...new Set(msgIds)];
  const { rows } = await sql<{ msg_id: unknown }>`
    INSERT INTO backfill_todo (msg_id, processed_at, meta, attempts, next_attempt_at, last_error)
    SELECT r.msg_id, r.updated_at, r.meta, 0, to_timestamp(${now}::bigint / 1000.0), NULL
    FROM (
      SELECT msg_id, updated_at, meta FROM proc_state
      WHERE msg_id = ANY(${ids}::bigint[]) AND status IN ('SUCCEEDED','SKIPPED','DEAD')
      UNION ALL
      SELECT msg_id, updated_at, meta FROM proc_state_hst WHERE msg_id = ANY(${ids}::bigint[])
    ) r
    ON CONFLICT (msg_id) DO NOTHING
    RETURNING msg_id`.execute(db);
  return rows.map((r) => toNumber(r.msg_id)).sort((a, b) => a - b);
}
