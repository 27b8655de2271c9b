import type { RequestFilter, RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_SELECT, requestFromRow, type RequestRow } from "../request-row.js";

/** Requests matching `f`, newest first. */
export async function listRequests(db: Db, f: RequestFilter): Promise<RequestRecord[]> {
  const where = [sql`true`];
  if (f.statuses !== undefined) where.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.requestType !== undefined) where.push(sql`req_type = ${f.requestType}`);
  if (f.beforeId !== undefined) where.push(sql`req_id < ${f.beforeId}::bigint`);
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE ${sql.join(where, sql` AND `)}
    ORDER BY req_id DESC LIMIT ${f.limit}`.execute(db);
  return rows.map(requestFromRow);
}
