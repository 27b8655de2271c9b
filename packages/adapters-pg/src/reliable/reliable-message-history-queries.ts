import type { LineageQuery } from "@msgx/core";
import { isOutageRecheck, type ReliableMessageCause, type ReliableMessageHistoryEntry, type ReliableMessageHistoryPage } from "@msgx/reliable";
import { sql } from "kysely";
import type { Db } from "../queries/db.js";
import { historyOf, historyPageOf, historyTimes, type HistoryTable } from "../queries/history-page.js";
import { fromJson } from "../rows/values.js";
import { ts } from "./reliable-message-row.js";

/** A row with its columns under the entry's names. */
type HistoryRow = Omit<ReliableMessageHistoryEntry, "at" | "cause" | "firstAt"> & { at: Date; cause: unknown; firstAt: Date | null };

/**
 * Writes history entries (of messages already written in this transaction, each to the version
 * after the one it replaced). An outage recheck first tries to fold into the message's newest row
 * (`collapsesInto` in `@msgx/reliable`: that row is the previous version, an outage recheck between
 * the same phases): one UPDATE moves it on. The others, and a recheck that found no such row, are
 * inserted in one statement.
 */
export async function insertHistory(db: Db, entries: readonly ReliableMessageHistoryEntry[]): Promise<void> {
  const rechecks = entries.filter(isOutageRecheck);
  const folded = rechecks.length === 0 ? new Set<string>() : await foldRechecks(db, rechecks);
  const appended = entries.filter((h) => !folded.has(h.messageId) || !isOutageRecheck(h));
  if (appended.length === 0) return;
  const values = appended.map(
    (h) => sql`(${h.messageId}, ${h.version}::integer, ${ts(h.at)}, ${h.from}, ${h.to}, ${h.event}, ${h.detail}, ${JSON.stringify(h.cause)}::jsonb, ${h.repeats}::integer, ${ts(h.firstAt)})`,
  );
  await sql`
    INSERT INTO reliable_message_history (message_id, version, at, from_phase, to_phase, event, detail, cause, repeats, first_at)
    VALUES ${sql.join(values)}`.execute(db);
}

/** Moves each message's newest row on by its recheck when that row is one too; the ids moved. */
async function foldRechecks(db: Db, rechecks: readonly ReliableMessageHistoryEntry[]): Promise<Set<string>> {
  const values = rechecks.map((h) => sql`(${h.messageId}::text, ${h.version}::integer, ${ts(h.at)}, ${h.from}::text, ${h.to}::text, ${h.detail}::text, ${h.repeats}::integer)`);
  const { rows } = await sql<{ messageId: string }>`
    UPDATE reliable_message_history h
       SET version = n.version, at = n.at, detail = n.detail, repeats = h.repeats + n.repeats, first_at = COALESCE(h.first_at, h.at)
      FROM (VALUES ${sql.join(values)}) AS n (message_id, version, at, from_phase, to_phase, detail, repeats)
     WHERE h.message_id = n.message_id AND h.version = n.version - 1
       AND h.event = 'rescheduled' AND h.cause->>'kind' = 'recovery' AND h.cause->>'lastSend' = 'pending'
       AND h.from_phase = n.from_phase AND h.to_phase = n.to_phase
    RETURNING h.message_id AS "messageId"`.execute(db);
  return new Set(rows.map((r) => r.messageId));
}

const HISTORY: HistoryTable<HistoryRow, ReliableMessageHistoryEntry> = {
  table: "reliable_message_history",
  keyColumn: "message_id",
  columns: sql`message_id AS "messageId", version, at, from_phase AS "from", to_phase AS "to", event, detail, cause, repeats, first_at AS "firstAt"`,
  entryOf: (r) => ({ ...r, ...historyTimes(r), cause: fromJson<ReliableMessageCause>(r.cause) }),
};

/** The history of one message, oldest first. */
export const messageHistory = (db: Db, messageId: string): Promise<ReliableMessageHistoryEntry[]> => historyOf(db, HISTORY, messageId);

/** One page of a message's history, newest first. */
export const messageHistoryPage = (db: Db, messageId: string, query: LineageQuery): Promise<ReliableMessageHistoryPage> => historyPageOf(db, HISTORY, messageId, query);
