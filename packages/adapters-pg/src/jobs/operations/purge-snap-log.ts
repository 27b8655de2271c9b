import { sql } from "kysely";
import type { Db } from "../../operations/db.js";

/** Deletes up to `limit` snapshot-log rows logged before `before`, oldest first (by `schd_snap_log_logged_at_idx`). */
export async function purgeSnapLog(db: Db, before: number, limit: number): Promise<number> {
  const { rows } = await sql<{ snap_id: unknown }>`
    WITH doomed AS (
      SELECT snap_id FROM schd_snap_log
      WHERE logged_at < to_timestamp(${before}::bigint / 1000.0)
      ORDER BY logged_at, snap_id
      LIMIT ${limit}::integer
    )
    DELETE FROM schd_snap_log s USING doomed d WHERE s.snap_id = d.snap_id
    RETURNING s.snap_id`.execute(db);
  return rows.length;
}
