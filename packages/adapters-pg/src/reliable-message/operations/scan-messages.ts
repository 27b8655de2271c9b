import type { ReliableMessageFilter, ReliableMessage } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { MESSAGE_COLUMNS, messageFromRow, type ReliableMessageRow } from "../reliable-message-row.js";
import { filterSql } from "./message-filter.js";

/** Keyset page by message id (code-point order: the column is `COLLATE "C"`). */
export async function scanMessages(db: Db, filter: ReliableMessageFilter, afterMessageId: string | null, limit: number): Promise<ReliableMessage[]> {
  const after = afterMessageId === null ? sql`TRUE` : sql`message_id > ${afterMessageId}`;
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message
    WHERE ${filterSql(filter)} AND ${after}
    ORDER BY message_id LIMIT ${limit}::integer`.execute(db);
  return rows.map(messageFromRow);
}
