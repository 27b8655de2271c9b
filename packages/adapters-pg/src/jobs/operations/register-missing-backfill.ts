import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toNumber } from "../../rows/values.js";

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
