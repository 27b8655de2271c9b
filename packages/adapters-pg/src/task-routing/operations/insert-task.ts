import type { TaskRecord } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, json } from "../task-rows.js";

/** Inserts the task unless its id is taken; true when it was inserted. */
export async function insertTask(db: Kysely<any>, t: TaskRecord): Promise<boolean> {
  const { rows } = await sql<{ task_id: string }>`
    INSERT INTO task_task (task_id, owner_service, handler_code, biz_type, biz_id, external_system, external_task_type,
                           external_task_no, payload, status, version, last_event_id, status_reason, callback_error,
                           created_at, updated_at)
    VALUES (${t.taskId}, ${t.ownerService}, ${t.handlerCode}, ${t.bizType}, ${t.bizId}, ${t.externalSystem},
            ${t.externalTaskType}, ${t.externalTaskNo}, ${json(t.payload)}::jsonb, ${t.status}, ${t.version},
            ${t.lastEventId}, ${t.statusReason}, ${t.callbackError}, ${at(t.createdAt)}, ${at(t.updatedAt)})
    ON CONFLICT (task_id) DO NOTHING
    RETURNING task_id`.execute(db);
  return rows.length === 1;
}
