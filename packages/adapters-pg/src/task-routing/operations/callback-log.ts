import type { TaskCallbackEntry } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, CALLBACK_COLUMNS, callbackFromRow, type CallbackRow } from "../task-rows.js";

export async function insertCallback(db: Kysely<any>, e: TaskCallbackEntry): Promise<void> {
  await sql`
    INSERT INTO task_callback (task_id, event_id, result, message, outcome, reason, received_at)
    VALUES (${e.taskId}, ${e.eventId}, ${e.result}, ${e.message}, ${e.outcome}, ${e.reason}, ${at(e.receivedAt)})`.execute(db);
}

export async function listCallbacks(db: Kysely<any>, taskId: string): Promise<TaskCallbackEntry[]> {
  const { rows } = await sql<CallbackRow>`
    SELECT ${sql.raw(CALLBACK_COLUMNS)} FROM task_callback WHERE task_id = ${taskId} ORDER BY callback_id`.execute(db);
  return rows.map(callbackFromRow);
}
