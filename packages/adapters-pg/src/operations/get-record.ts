import type { ProcRecord } from "@msgx/core";
import { sql } from "kysely";
import { PROC_COLUMNS, procFromRow, type ProcStateRow } from "../rows/proc-row.js";
import type { Db } from "./db.js";

/** One record by id. */
export async function getRecord(db: Db, msgId: number): Promise<ProcRecord | undefined> {
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state WHERE msg_id = ${msgId}::bigint`.execute(db);
  return rows[0] === undefined ? undefined : procFromRow(rows[0]);
}
