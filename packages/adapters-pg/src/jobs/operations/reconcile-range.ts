import type { ProcStatus } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toNumber } from "../../rows/values.js";
import type { ReconcileEntry } from "@msgx/core";

/** Every live and archived record in `(afterMsgId, throughMsgId]` with its todo, in one statement (one snapshot). */
export async function reconcileRange(db: Db, afterMsgId: number, throughMsgId: number): Promise<ReconcileEntry[]> {
  if (throughMsgId <= afterMsgId) return [];
  const { rows } = await sql<{ msg_id: unknown; status: string; archived: boolean; backfill_pending: boolean }>`
    SELECT u.msg_id, u.status, u.archived, EXISTS (SELECT 1 FROM backfill_todo b WHERE b.msg_id = u.msg_id) AS backfill_pending
    FROM (
      SELECT msg_id, status, false AS archived FROM proc_state
      WHERE msg_id > ${afterMsgId}::bigint AND msg_id <= ${throughMsgId}::bigint
      UNION ALL
      SELECT msg_id, status, true AS archived FROM proc_state_hst
      WHERE msg_id > ${afterMsgId}::bigint AND msg_id <= ${throughMsgId}::bigint
    ) u
    ORDER BY u.msg_id`.execute(db);
  return rows.map((r) => ({ msgId: toNumber(r.msg_id), status: r.status as ProcStatus, archived: r.archived, backfillPending: r.backfill_pending }));
}
