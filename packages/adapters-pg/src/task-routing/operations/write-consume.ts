import { MsgxError, type TaskConsumeLogEntry, type TaskConsumeLogWrite } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, atOrNull, CONSUME_COLUMNS, consumeFromRow, json, type ConsumeRow } from "../task-rows.js";

/**
 * Inserts the row or replaces a FAILED one (keeping `created_at`); a SUCCEEDED or DEAD row is
 * left alone. Returns the row as stored afterwards, written or not, in one statement.
 */
export async function writeConsume(db: Kysely<any>, w: TaskConsumeLogWrite): Promise<{ readonly written: boolean; readonly row: TaskConsumeLogEntry }> {
  const wantsCallback = w.callback && w.status !== "FAILED";
  const { rows } = await sql<ConsumeRow & { written: boolean }>`
    WITH up AS (
      INSERT INTO task_event_consume_log AS t (event_id, task_id, owner_service, handler_code, event_type, status, error_msg,
                                              attempts, next_attempt_at, payload, delivery_event_id, callback_status,
                                              callback_attempts, callback_next_at, callback_error, created_at, updated_at)
      VALUES (${w.eventId}, ${w.taskId}, ${w.ownerService}, ${w.handlerCode}, ${w.eventType}, ${w.status}, ${w.errorMsg},
              ${w.attempts}, ${atOrNull(w.nextAttemptAt)}, ${json(w.payload)}::jsonb, ${w.deliveryEventId},
              ${wantsCallback ? "PENDING" : null}, 0, ${wantsCallback ? at(w.at) : null}, NULL, ${at(w.at)}, ${at(w.at)})
      ON CONFLICT (event_id) DO UPDATE
        SET task_id = EXCLUDED.task_id, owner_service = EXCLUDED.owner_service, handler_code = EXCLUDED.handler_code,
            event_type = EXCLUDED.event_type, status = EXCLUDED.status, error_msg = EXCLUDED.error_msg,
            attempts = EXCLUDED.attempts, next_attempt_at = EXCLUDED.next_attempt_at, payload = EXCLUDED.payload,
            delivery_event_id = EXCLUDED.delivery_event_id, callback_status = EXCLUDED.callback_status,
            callback_attempts = 0, callback_next_at = EXCLUDED.callback_next_at, callback_error = NULL,
            updated_at = EXCLUDED.updated_at
        WHERE t.status = 'FAILED'
      RETURNING ${sql.raw(CONSUME_COLUMNS)}
    )
    SELECT ${sql.raw(CONSUME_COLUMNS)}, true AS written FROM up
    UNION ALL
    SELECT ${sql.raw(CONSUME_COLUMNS)}, false AS written FROM task_event_consume_log
    WHERE event_id = ${w.eventId} AND NOT EXISTS (SELECT 1 FROM up)`.execute(db);
  const row = rows[0];
  if (row === undefined) throw new MsgxError("INFRA", `consume log ${w.eventId}: neither written nor found`);
  return { written: row.written, row: consumeFromRow(row) };
}
