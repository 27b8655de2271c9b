import type { ConsumeLogEntry } from "@msgx/core";
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { ts } from "../reliable-message-row.js";

/**
 * Records a consumed message id; false when it is already recorded. An uncommitted claim of the
 * same id by another transaction makes this one wait on the unique index until that one ends.
 */
export async function claimConsume(db: Kysely<any>, entry: ConsumeLogEntry): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO reliable_message_consume_log (message_id, consumer_queue, send_count, consumed_at)
    VALUES (${entry.messageId}, ${entry.consumerQueue}, ${entry.sendCount}::integer, ${ts(entry.consumedAt)})
    ON CONFLICT (message_id) DO NOTHING RETURNING message_id`.execute(db);
  return rows.length === 1;
}
