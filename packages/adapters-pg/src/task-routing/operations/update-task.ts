import { MsgxError, type TaskRecord } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, json } from "../task-rows.js";

/**
 * Replaces the task whose stored version is `t.version - 1` (routing fields never change after
 * create). Zero rows means the task is missing or moved on: `CONFLICT`.
 */
export async function updateTask(db: Kysely<any>, t: TaskRecord): Promise<void> {
  const { rows } = await sql<{ task_id: string }>`
    UPDATE task_task
    SET external_task_no = ${t.externalTaskNo}, payload = ${json(t.payload)}::jsonb, status = ${t.status},
        version = ${t.version}, last_event_id = ${t.lastEventId}, status_reason = ${t.statusReason},
        callback_error = ${t.callbackError}, updated_at = ${at(t.updatedAt)}
    WHERE task_id = ${t.taskId} AND version = ${t.version - 1}
    RETURNING task_id`.execute(db);
  if (rows.length !== 1) throw new MsgxError("CONFLICT", `task ${t.taskId}: stored version is not ${t.version - 1}`);
}
