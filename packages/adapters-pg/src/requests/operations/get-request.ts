import type { RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_SELECT, requestFromRow, type RequestRow } from "../request-row.js";

export async function getRequest(db: Db, requestId: string): Promise<RequestRecord | undefined> {
  if (!/^\d{1,18}$/.test(requestId)) return undefined;
  const { rows } = await sql<RequestRow>`SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE req_id = ${requestId}::bigint`.execute(db);
  return rows[0] === undefined ? undefined : requestFromRow(rows[0]);
}
