import type { RefEntry } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { refFromRow, type RefRow } from "../ref-row.js";

export async function getReference(db: Db, rtype: string, rkey: string): Promise<RefEntry | undefined> {
  const { rows } = await sql<RefRow>`SELECT * FROM ref_master WHERE rtype = ${rtype} AND rkey = ${rkey}`.execute(db);
  return rows[0] === undefined ? undefined : refFromRow(rows[0]);
}
