import type { ReliableMessageCause, ReliableMessageHistoryEntry } from "@msgx/reliable";
import { sql } from "kysely";
import type { Db } from "../queries/db.js";
import { fromJson } from "../rows/values.js";
import { ts } from "./reliable-message-row.js";

/** A row with its columns under the entry's names. */
type HistoryRow = Omit<ReliableMessageHistoryEntry, "at" | "cause"> & { at: Date; cause: unknown };

/** Appends history entries (of messages already written in this transaction), one statement. */
export async function insertHistory(db: Db, entries: readonly ReliableMessageHistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const values = entries.map(
    (h) => sql`(${h.messageId}, ${h.version}::integer, ${ts(h.at)}, ${h.from}, ${h.to}, ${h.event}, ${h.detail}, ${JSON.stringify(h.cause)}::jsonb)`,
  );
  await sql`
    INSERT INTO reliable_message_history (message_id, version, at, from_phase, to_phase, event, detail, cause)
    VALUES ${sql.join(values)}`.execute(db);
}

/** The history of one message, oldest first (a primary-key range). */
export async function messageHistory(db: Db, messageId: string): Promise<ReliableMessageHistoryEntry[]> {
  const { rows } = await sql<HistoryRow>`
    SELECT message_id AS "messageId", version, at, from_phase AS "from", to_phase AS "to", event, detail, cause
    FROM reliable_message_history WHERE message_id = ${messageId} ORDER BY version`.execute(db);
  return rows.map((r) => ({ ...r, at: new Date(r.at).getTime(), cause: fromJson<ReliableMessageCause>(r.cause) }));
}
