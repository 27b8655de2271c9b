import type { RefEntry, RefListQuery } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { refFromRow, type RefRow } from "../ref-row.js";

/** One type's rows in code-point key order (`COLLATE "C"`, the listing index), keyset paged. */
export async function listReferences(db: Db, q: RefListQuery): Promise<RefEntry[]> {
  const { rows } = await sql<RefRow>`
    SELECT * FROM ref_master
    WHERE rtype = ${q.rtype}
      ${q.includeDeleted === true ? sql`` : sql`AND NOT deleted`}
      ${q.afterKey === undefined ? sql`` : sql`AND rkey COLLATE "C" > ${q.afterKey}`}
    ORDER BY rkey COLLATE "C" LIMIT ${q.limit}`.execute(db);
  return rows.map(refFromRow);
}
