import type { ProcRecord } from "@msgx/core";
import { sql } from "kysely";
import { PROC_COLUMNS, procFromRow, type ProcStateRow } from "../rows/proc-row.js";
import type { Db } from "./db.js";

/** The records among `msgIds`, locked for the transaction, in the order asked. */
export async function loadRecords(db: Db, msgIds: readonly number[]): Promise<ProcRecord[]> {
  if (msgIds.length === 0) return [];
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE msg_id = ANY(${[...msgIds]}::bigint[])
    ORDER BY msg_id FOR UPDATE`.execute(db);
  const byId = new Map(rows.map(procFromRow).map((r) => [r.msgId, r]));
  return msgIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}
