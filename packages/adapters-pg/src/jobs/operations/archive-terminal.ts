import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toNumber } from "../../rows/values.js";
import type { ArchiveQuery } from "@msgx/core";

const COLUMNS = "msg_id, status, attempts, next_attempt_at, head_since, identity_key, meta, error_class, reason, history, received_at, updated_at";

/**
 * Moves old terminal records without a backfill todo from `proc_state` to `proc_state_hst`,
 * unchanged, in one statement: oldest `updated_at` first through `proc_state_terminal_age_idx`
 * (the predicate repeats the index's literally). Runs under the pipeline lock, so no run or replay
 * changes a picked record meanwhile. Returns the ids, ascending.
 */
export async function archiveTerminal(db: Db, q: ArchiveQuery): Promise<number[]> {
  const { rows } = await sql<{ msg_id: unknown }>`
    WITH picked AS (
      SELECT p.msg_id FROM proc_state p
      WHERE p.status IN ('SUCCEEDED','SKIPPED','DEAD')
        AND p.updated_at < to_timestamp(${q.updatedBefore}::bigint / 1000.0)
        AND p.msg_id <= ${q.throughMsgId}::bigint
        AND NOT EXISTS (SELECT 1 FROM backfill_todo b WHERE b.msg_id = p.msg_id)
      ORDER BY p.updated_at, p.msg_id
      LIMIT ${q.limit}::integer
    ), moved AS (
      DELETE FROM proc_state p USING picked WHERE p.msg_id = picked.msg_id
      RETURNING ${sql.raw(COLUMNS.split(", ").map((c) => `p.${c}`).join(", "))}
    )
    INSERT INTO proc_state_hst (${sql.raw(COLUMNS)}, archived_at)
    SELECT ${sql.raw(COLUMNS)}, to_timestamp(${q.now}::bigint / 1000.0) FROM moved
    RETURNING msg_id`.execute(db);
  return rows.map((r) => toNumber(r.msg_id)).sort((a, b) => a - b);
}
