import type { RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { REQUEST_COLUMNS, requestValues } from "../request-row.js";

/**
 * Replaces the row of `next.requestId` if it still has `expectedVersion`; true when it did. Under
 * READ COMMITTED a concurrent writer's update (or the pipeline's row lock) is waited for and the
 * version re-checked on the row it committed, so of two writers expecting one version one wins.
 */
export async function updateRequest(db: Db, next: RequestRecord, expectedVersion: number): Promise<boolean> {
  const { rows } = await sql`
    UPDATE req_track SET (${sql.raw(REQUEST_COLUMNS)}) = ROW ${requestValues(next)}
    WHERE req_id = ${next.requestId}::bigint AND version = ${expectedVersion}::integer
    RETURNING req_id`.execute(db);
  return rows.length === 1;
}
