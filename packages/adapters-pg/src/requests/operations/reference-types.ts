import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toNumber } from "../../rows/values.js";

/** The types present with their live (not deleted) row counts, in code-point order. */
export async function referenceTypes(db: Db): Promise<{ rtype: string; live: number }[]> {
  const { rows } = await sql<{ rtype: string; live: unknown }>`
    SELECT rtype, count(*) FILTER (WHERE NOT deleted) AS live FROM ref_master GROUP BY rtype ORDER BY rtype COLLATE "C"`.execute(db);
  return rows.map((r) => ({ rtype: r.rtype, live: toNumber(r.live) }));
}
