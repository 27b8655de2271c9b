import type { InboxEntry, IntakeState } from "@msgx/core";
import { sql } from "kysely";
import { jsonParam, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/**
 * Inserts PENDING records for the entries that have none (live or archived in `proc_state_hst`)
 * and raises the intake horizon, in one statement (so atomically, without a transaction). Returns
 * the ids really inserted, in input order.
 */
export async function enqueue(db: Db, entries: readonly InboxEntry[], intake: IntakeState, now: number): Promise<number[]> {
  const rows = entries.map((e) => ({ msg_id: e.msgId, received_at: e.receivedAt }));
  const { rows: inserted } = await sql<{ msg_id: unknown }>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(msg_id bigint, received_at bigint)
    ), ins AS (
      INSERT INTO proc_state (msg_id, status, attempts, history, received_at, updated_at)
      SELECT msg_id, 'PENDING', 0, '[]'::jsonb, to_timestamp(received_at / 1000.0), to_timestamp(${now}::bigint / 1000.0)
      FROM input
      -- An archived id is done for good: never enqueued again (see jobs/operations/archive-terminal.ts).
      WHERE NOT EXISTS (SELECT 1 FROM proc_state_hst h WHERE h.msg_id = input.msg_id)
      ON CONFLICT (msg_id) DO NOTHING
      RETURNING msg_id
    ), horizon AS (
      INSERT INTO intake_state (id, horizon, updated_at)
      VALUES (1, ${intake.horizon}::bigint, to_timestamp(${now}::bigint / 1000.0))
      ON CONFLICT (id) DO UPDATE
        SET horizon = GREATEST(intake_state.horizon, EXCLUDED.horizon), updated_at = EXCLUDED.updated_at
    )
    SELECT msg_id FROM ins`.execute(db);
  const fresh = new Set(inserted.map((r) => toNumber(r.msg_id)));
  const result: number[] = [];
  for (const e of entries) {
    if (fresh.delete(e.msgId)) result.push(e.msgId);
  }
  return result;
}
