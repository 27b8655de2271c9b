import type { RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_SELECT, requestFromRow, type RequestRow } from "../request-row.js";

/** Every open request (REGISTERED, SENT, WAITING), ascending by id. */
export async function openRequests(db: Db): Promise<RequestRecord[]> {
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE status IN ('REGISTERED','SENT','WAITING') ORDER BY req_id`.execute(db);
  return rows.map(requestFromRow);
}
