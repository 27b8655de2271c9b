import type { ApiCaller, LineageQuery } from "@msgx/core";
import type { TaskCause, TaskHistoryEntry, TaskHistoryPage } from "@msgx/tasks";
import { sql, type QueryExecutorProvider } from "kysely";
import { historyOf, historyPageOf, historyTimes, type HistoryTable } from "../queries/history-page.js";
import { fromJson } from "../rows/values.js";
import { at, json } from "./task-rows.js";

/** A row with its columns under the entry's names. */
type HistoryRow = Omit<TaskHistoryEntry, "at" | "cause" | "caller" | "firstAt"> & { at: Date; cause: unknown; caller: unknown; firstAt: Date | null };

/**
 * Writes one history entry (its task is written in this transaction or before, to the version
 * after the one it replaced). A watchdog alert first tries to fold into the task's newest row
 * (`taskEntryCollapsesInto` in `@msgx/tasks`: that row is the previous version, a watchdog alert
 * of the same status): one UPDATE moves it on; else, and for any other entry, one INSERT.
 */
export async function insertTaskHistory(db: QueryExecutorProvider, h: TaskHistoryEntry): Promise<void> {
  if (h.cause.kind === "watchdog") {
    const folded = await sql`
      UPDATE task_history
         SET version = ${h.version}, at = ${at(h.at)}, detail = ${h.detail}, repeats = repeats + ${h.repeats}::integer, first_at = COALESCE(first_at, at)
       WHERE task_id = ${h.taskId} AND version = ${h.version - 1}::integer AND cause->>'kind' = 'watchdog'
         AND from_status IS NOT DISTINCT FROM ${h.from}::text AND to_status = ${h.to}`.execute(db);
    if (folded.numAffectedRows === 1n) return;
  }
  await sql`
    INSERT INTO task_history (task_id, version, at, from_status, to_status, cause, caller, detail, repeats, first_at)
    VALUES (${h.taskId}, ${h.version}, ${at(h.at)}, ${h.from}, ${h.to}, ${json(h.cause)}::jsonb, ${h.caller === null ? null : json(h.caller)}::jsonb, ${h.detail}, ${h.repeats}, ${at(h.firstAt)})`.execute(db);
}

const HISTORY: HistoryTable<HistoryRow, TaskHistoryEntry> = {
  table: "task_history",
  keyColumn: "task_id",
  columns: sql`task_id AS "taskId", version, at, from_status AS "from", to_status AS "to", cause, caller, detail, repeats, first_at AS "firstAt"`,
  entryOf: (r) => ({ ...r, ...historyTimes(r), cause: fromJson<TaskCause>(r.cause), caller: r.caller === null ? null : fromJson<ApiCaller>(r.caller) }),
};

/** The history of one task, oldest first. */
export const taskHistory = (db: QueryExecutorProvider, taskId: string): Promise<TaskHistoryEntry[]> => historyOf(db, HISTORY, taskId);

/** One page of a task's history, newest first. */
export const taskHistoryPage = (db: QueryExecutorProvider, taskId: string, query: LineageQuery): Promise<TaskHistoryPage> => historyPageOf(db, HISTORY, taskId, query);
