import type { ReliableMessage } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { MESSAGE_COLUMNS, messageFromRow, type ReliableMessageRow } from "../reliable-message-row.js";

/** One message by id (a primary-key probe). */
export async function getMessage(db: Db, messageId: string): Promise<ReliableMessage | undefined> {
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message WHERE message_id = ${messageId}`.execute(db);
  return rows[0] === undefined ? undefined : messageFromRow(rows[0]);
}
