import type { ProcRecord } from "@msgx/core";
import { sql } from "kysely";
import { PROC_COLUMNS, procFromRow, type ProcStateRow } from "../rows/proc-row.js";
import type { Db } from "./db.js";

/** Unfinished records from `fromMsgId` on, ascending: a range scan of the partial index. */
export async function unfinished(db: Db, fromMsgId: number, limit: number): Promise<ProcRecord[]> {
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE status IN ('PENDING','FAILED') AND msg_id >= ${fromMsgId}::bigint
    ORDER BY msg_id LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map(procFromRow);
}
