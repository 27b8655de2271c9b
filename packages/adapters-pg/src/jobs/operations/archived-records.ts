import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { PROC_COLUMNS, procFromRow, type ProcStateRow } from "../../rows/proc-row.js";
import { toMs } from "../../rows/values.js";
import type { ArchivedRecord } from "@msgx/core";

/** The archived records among `msgIds`, ascending. */
export async function archivedRecords(db: Db, msgIds: readonly number[]): Promise<ArchivedRecord[]> {
  if (msgIds.length === 0) return [];
  const { rows } = await sql<ProcStateRow & { archived_at: unknown }>`
    SELECT ${sql.raw(PROC_COLUMNS)}, archived_at FROM proc_state_hst
    WHERE msg_id = ANY(${[...new Set(msgIds)]}::bigint[]) ORDER BY msg_id`.execute(db);
  return rows.map((r) => ({ record: procFromRow(r), archivedAt: toMs(r.archived_at) }));
}
