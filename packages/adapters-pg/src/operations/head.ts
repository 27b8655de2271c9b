import type { ProcRecord } from "@msgx/core";
import { sql } from "kysely";
import { PROC_COLUMNS, procFromRow, type ProcStateRow } from "../rows/proc-row.js";
import type { Db } from "./db.js";

/**
 * The smallest unfinished record. The predicate is written as literals, exactly as in the partial
 * index `proc_state_unfinished_idx`, so the planner proves the index applies: one probe.
 */
export async function head(db: Db): Promise<ProcRecord | undefined> {
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE status IN ('PENDING','FAILED')
    ORDER BY msg_id LIMIT 1`.execute(db);
  return rows[0] === undefined ? undefined : procFromRow(rows[0]);
}
