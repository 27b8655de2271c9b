import type { ReliableMessage } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { MESSAGE_COLUMNS, messageValues } from "../reliable-message-row.js";

/** Inserts `message` unless its id is taken; true when it was inserted. */
export async function insertMessage(db: Db, message: ReliableMessage): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO reliable_message (${sql.raw(MESSAGE_COLUMNS)}) VALUES ${messageValues(message)}
    ON CONFLICT (message_id) DO NOTHING RETURNING message_id`.execute(db);
  return rows.length === 1;
}
