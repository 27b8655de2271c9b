import type { RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_SELECT, requestFromRow, type RequestRow } from "../request-row.js";

/**
 * The requests a reply may answer (SENT, WAITING), ascending by id, locked `FOR UPDATE` for the
 * pipeline transaction: a concurrent expiry waits for it, then finds the version moved on.
 */
export async function answerableRequests(db: Db): Promise<RequestRecord[]> {
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE status IN ('SENT','WAITING') ORDER BY req_id FOR UPDATE`.execute(db);
  return rows.map(requestFromRow);
}
