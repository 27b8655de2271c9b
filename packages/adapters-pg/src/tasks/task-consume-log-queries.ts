import { sql, type QueryExecutorProvider } from "kysely";
import type { TaskConsumeLogEntry } from "@msgx/tasks";
import { at, CONSUME_COLUMNS, consumeFromRow, type ConsumeRow } from "./task-rows.js";

/**
 * An operator's replay: a DEAD row becomes FAILED, attempts 0, due at `when`, with `note` and the
 * replayed record's delivery id, and no callback. Any other row is left alone. Returns the row as
 * stored afterwards, changed or not, in one statement.
 */
export async function reopenDeadConsume(db: QueryExecutorProvider, eventId: string, note: string, deliveryEventId: string | null, when: number): Promise<TaskConsumeLogEntry | undefined> {
  const { rows } = await sql<ConsumeRow>`
    WITH up AS (
      UPDATE task_event_consume_log
      SET status = 'FAILED', attempts = 0, next_attempt_at = ${at(when)}, error_msg = ${note}, delivery_event_id = ${deliveryEventId},
          callback_status = NULL, callback_attempts = 0, callback_next_at = NULL, callback_error = NULL, updated_at = ${at(when)}
      WHERE event_id = ${eventId} AND status = 'DEAD'
      RETURNING ${sql.raw(CONSUME_COLUMNS)}
    )
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM up
    UNION ALL
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE event_id = ${eventId} AND NOT EXISTS (SELECT 1 FROM up)`.execute(db);
  return rows[0] === undefined ? undefined : consumeFromRow(rows[0]);
}

/** A SENT callback becomes PENDING due at `when` (failed tries still counted); true when a row changed. */
export async function reopenCallback(db: QueryExecutorProvider, eventId: string, when: number): Promise<boolean> {
  const result = await sql`
    UPDATE task_event_consume_log
    SET callback_status = 'PENDING', callback_next_at = ${at(when)}, callback_error = NULL, updated_at = ${at(when)}
    WHERE event_id = ${eventId} AND callback_status = 'SENT'`.execute(db);
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/**
 * Deletes up to `limit` SUCCEEDED rows with nothing left to report, last changed before `before`,
 * oldest first: the predicate is the one of `task_event_consume_log_purge_idx` (migration 0017),
 * so with it the purge reads one ordered index range. Rows of open transactions are not visible
 * to it and stay.
 */
export async function purgeTaskConsumeLog(db: QueryExecutorProvider, before: number, limit: number): Promise<number> {
  const n = Math.floor(limit);
  if (!(n >= 1)) return 0;
  const { rows } = await sql<{ event_id: string }>`
    WITH doomed AS (${purgeCandidates(before, n)})
    DELETE FROM task_event_consume_log c USING doomed d WHERE c.event_id = d.event_id
    RETURNING c.event_id`.execute(db);
  return rows.length;
}

/** The rows one purge takes (its own statement, so a test can EXPLAIN it against the index). */
export const purgeCandidates = (before: number, n: number) => sql`
  SELECT event_id FROM task_event_consume_log
  WHERE status = 'SUCCEEDED' AND (callback_status IS NULL OR callback_status = 'SENT') AND updated_at < ${at(before)}
  ORDER BY updated_at, event_id
  LIMIT ${n}::integer`;
