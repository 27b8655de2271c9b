import { sql } from "kysely";
import type { Db } from "../../operations/db.js";

/** Deletes the row of `messageId` if it still has `expectedVersion`; true when it did. */
export async function deleteMessage(db: Db, messageId: string, expectedVersion: number): Promise<boolean> {
  const { rows } = await sql`
    DELETE FROM reliable_message WHERE message_id = ${messageId} AND version = ${expectedVersion}::integer
    RETURNING message_id`.execute(db);
  return rows.length === 1;
}
