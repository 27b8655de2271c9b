import type { ReliableMessage } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { MESSAGE_COLUMNS, messageValues } from "../reliable-message-row.js";

/**
 * Replaces the row of `message.messageId` if it still has `expectedVersion`; true when it did.
 * Under READ COMMITTED a concurrent writer's update is waited for and the version re-checked on
 * the row it committed, so at most one of two writers expecting the same version succeeds.
 */
export async function updateMessage(db: Db, message: ReliableMessage, expectedVersion: number): Promise<boolean> {
  const { rows } = await sql`
    UPDATE reliable_message SET (${sql.raw(MESSAGE_COLUMNS)}) = ROW ${messageValues(message)}
    WHERE message_id = ${message.messageId} AND version = ${expectedVersion}::integer
    RETURNING message_id`.execute(db);
  return rows.length === 1;
}
