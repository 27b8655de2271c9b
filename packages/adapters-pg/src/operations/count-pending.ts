import type { Target } from "@msgx/core";
import { sql } from "kysely";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** How many events of `target` are PENDING (an index-only count over the partial index). */
export async function countPending(db: Db, target: Target): Promise<number> {
  const { rows } = await sql<{ n: unknown }>`
    SELECT count(*) AS n FROM msg_event WHERE target = ${target} AND status = 'PENDING'`.execute(db);
  return toNumber(rows[0]?.n ?? 0);
}
