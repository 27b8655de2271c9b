import type { TaskConsumeLogEntry } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, CONSUME_COLUMNS, consumeFromRow, type ConsumeRow } from "../task-rows.js";

/** PENDING callbacks due at `now`, oldest due first: a probe into the partial callback index. */
export async function dueCallbacks(db: Kysely<any>, now: number, limit: number): Promise<TaskConsumeLogEntry[]> {
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log
    WHERE callback_status = 'PENDING' AND callback_next_at <= ${at(now)}
    ORDER BY callback_next_at, event_id LIMIT ${limit}`.execute(db);
  return rows.map(consumeFromRow);
}

export async function settleCallback(db: Kysely<any>, eventId: string, status: "SENT" | "REJECTED", error: string | null, when: number): Promise<void> {
  await sql`
    UPDATE task_event_consume_log
    SET callback_status = ${status}, callback_next_at = NULL, callback_error = ${error}, updated_at = ${at(when)}
    WHERE event_id = ${eventId} AND callback_status = 'PENDING'`.execute(db);
}

export async function deferCallback(db: Kysely<any>, eventId: string, attempts: number, nextAt: number, error: string): Promise<void> {
  await sql`
    UPDATE task_event_consume_log
    SET callback_attempts = ${attempts}, callback_next_at = ${at(nextAt)}, callback_error = ${error}
    WHERE event_id = ${eventId} AND callback_status = 'PENDING'`.execute(db);
}
