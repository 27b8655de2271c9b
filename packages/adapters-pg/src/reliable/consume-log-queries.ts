import { sql, type QueryExecutorProvider } from "kysely";
import { ts } from "./reliable-message-row.js";

/**
 * Deletes up to `limit` consume-log claims consumed before `before`, oldest first (by
 * `reliable_message_consume_log_at_idx`, then the id). Claims of open transactions are not
 * visible to it and stay.
 */
export async function purgeConsumeLog(db: QueryExecutorProvider, before: number, limit: number): Promise<number> {
  const n = Math.floor(limit);
  if (!(n >= 1)) return 0;
  const { rows } = await sql<{ message_id: string }>`
    WITH doomed AS (
      SELECT message_id FROM reliable_message_consume_log
      WHERE consumed_at < ${ts(before)}
      ORDER BY consumed_at, message_id
      LIMIT ${n}::integer
    )
    DELETE FROM reliable_message_consume_log c USING doomed d WHERE c.message_id = d.message_id
    RETURNING c.message_id`.execute(db);
  return rows.length;
}
