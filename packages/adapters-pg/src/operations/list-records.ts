import type { ProcRecord, RecordFilter } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { PROC_COLUMNS, procFromRow, type ProcStateRow } from "../rows/proc-row.js";
import type { Db } from "./db.js";

/**
 * Records matching every given field of the filter, ascending by id. Id lists go as one array
 * parameter (`= ANY`), so a long list never meets the bind-parameter limit.
 */
export async function listRecords(db: Db, filter: RecordFilter): Promise<ProcRecord[]> {
  const where: RawBuilder<unknown>[] = [sql`TRUE`];
  if (filter.statuses !== undefined) where.push(sql`status = ANY(${[...filter.statuses]}::text[])`);
  if (filter.errorClasses !== undefined) where.push(sql`error_class = ANY(${[...filter.errorClasses]}::text[])`);
  if (filter.msgIds !== undefined) where.push(sql`msg_id = ANY(${[...filter.msgIds]}::bigint[])`);
  if (filter.afterMsgId !== undefined) where.push(sql`msg_id > ${filter.afterMsgId}::bigint`);
  const limit = filter.limit === undefined ? sql`` : sql`LIMIT ${Math.max(0, filter.limit)}::bigint`;
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE ${sql.join(where, sql` AND `)}
    ORDER BY msg_id ${limit}`.execute(db);
  return rows.map(procFromRow);
}

