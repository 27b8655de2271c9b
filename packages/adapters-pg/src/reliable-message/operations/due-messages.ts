import type { ReliableMessageStatus, ReliableMessage } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { MESSAGE_COLUMNS, messageFromRow, ts, type ReliableMessageRow } from "../reliable-message-row.js";

/** Due messages of one status, served by `reliable_message_due_idx` (the predicate repeats its `NOT dead`). */
export async function dueMessages(db: Db, status: ReliableMessageStatus, now: number, limit: number): Promise<ReliableMessage[]> {
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message
    WHERE status = ${status} AND NOT dead AND next_check_at <= ${ts(now)}
    ORDER BY status, next_check_at, message_id
    LIMIT ${limit}::integer`.execute(db);
  return rows.map(messageFromRow);
}
