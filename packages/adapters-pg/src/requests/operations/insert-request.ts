import type { RequestDraft, RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_COLUMNS, REQUEST_SELECT, requestFromRow, requestValues, type RequestRow } from "../request-row.js";

/** Inserts a request; the id comes from `req_track`'s sequence (ascending). */
export async function insertRequest(db: Db, draft: RequestDraft): Promise<RequestRecord> {
  const { rows } = await sql<RequestRow>`
    INSERT INTO req_track (${sql.raw(REQUEST_COLUMNS)}) VALUES ${requestValues(draft)}
    RETURNING ${sql.raw(REQUEST_SELECT)}`.execute(db);
  return requestFromRow(rows[0]!);
}
