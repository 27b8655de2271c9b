import { sql } from "kysely";
import type { Target } from "@msgx/core";
import type { Db } from "./db.js";

/** The targets starting with `prefix` that have PENDING rows, ascending (partial index on pending rows). */
export async function pendingTargets(db: Db, prefix: string): Promise<Target[]> {
  const rows = await sql<{ target: Target }>`
    SELECT DISTINCT target FROM msg_event
    WHERE status = 'PENDING' AND starts_with(target, ${prefix}) ORDER BY target`.execute(db);
  return rows.rows.map((r) => r.target);
}
