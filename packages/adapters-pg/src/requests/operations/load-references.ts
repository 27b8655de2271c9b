import type { RefEntry } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { refFromRow, type RefRow } from "../ref-row.js";

/** Every `ref_master` row of `rtypes`, tombstones included (the primary key's prefix). */
export async function loadReferences(db: Db, rtypes: readonly string[]): Promise<RefEntry[]> {
  if (rtypes.length === 0) return [];
  const { rows } = await sql<RefRow>`SELECT * FROM ref_master WHERE rtype = ANY(${[...rtypes]}::text[])`.execute(db);
  return rows.map(refFromRow);
}
