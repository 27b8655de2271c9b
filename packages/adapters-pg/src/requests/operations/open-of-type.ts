import type { RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_SELECT, requestFromRow, type RequestRow } from "../request-row.js";

/** The open request of one type (the partial unique index allows one), locked for the transaction. */
export async function openOfType(db: Db, requestType: string): Promise<RequestRecord | undefined> {
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track
    WHERE req_type = ${requestType} AND status IN ('REGISTERED','SENT','WAITING') FOR UPDATE`.execute(db);
  return rows[0] === undefined ? undefined : requestFromRow(rows[0]);
}
