import type { ReliableMessageFilter, ReliableMessagePage } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toNumber } from "../../rows/values.js";
import { MESSAGE_COLUMNS, messageFromRow, type ReliableMessageRow } from "../reliable-message-row.js";
import { filterSql } from "./message-filter.js";

/**
 * One page of the listing with the total count (a window count over the matching rows). Only a
 * page past the end, which has no row to carry the count, costs a second statement.
 */
export async function listMessagesPage(db: Db, filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage> {
  const where = filterSql(filter);
  const { rows } = await sql<ReliableMessageRow & { readonly total: unknown }>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)}, count(*) OVER () AS total
    FROM reliable_message WHERE ${where}
    ORDER BY created_at, message_id
    LIMIT ${pageSize}::integer OFFSET ${(pageNum - 1) * pageSize}::bigint`.execute(db);
  let total = rows[0] === undefined ? 0 : toNumber(rows[0].total);
  if (rows.length === 0 && pageNum > 1) {
    const counted = await sql<{ n: unknown }>`SELECT count(*) AS n FROM reliable_message WHERE ${where}`.execute(db);
    total = toNumber(counted.rows[0]?.n ?? 0);
  }
  return { items: rows.map(messageFromRow), pageNum, pageSize, total, totalPages: Math.ceil(total / pageSize) };
}
