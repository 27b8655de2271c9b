import type { ApiCaller } from "@msgx/core";
import type { TaskCause, TaskHistoryEntry } from "@msgx/tasks";
import { sql, type QueryExecutorProvider } from "kysely";
import { fromJson } from "../rows/values.js";
import { at, json } from "./task-rows.js";

/** A row with its columns under the entry's names. */
type HistoryRow = Omit<TaskHistoryEntry, "at" | "cause" | "caller"> & { at: Date; cause: unknown; caller: unknown };

/** Appends one history entry (its task is written in this transaction or before). */
export async function insertTaskHistory(db: QueryExecutorProvider, h: TaskHistoryEntry): Promise<void> {
  await sql`
    INSERT INTO task_history (task_id, version, at, from_status, to_status, cause, caller, detail)
    VALUES (${h.taskId}, ${h.version}, ${at(h.at)}, ${h.from}, ${h.to}, ${json(h.cause)}::jsonb, ${h.caller === null ? null : json(h.caller)}::jsonb, ${h.detail})`.execute(db);
}

/** The history of one task, oldest first (a primary-key range). */
export async function taskHistory(db: QueryExecutorProvider, taskId: string): Promise<TaskHistoryEntry[]> {
  const { rows } = await sql<HistoryRow>`
    SELECT task_id AS "taskId", version, at, from_status AS "from", to_status AS "to", cause, caller, detail
    FROM task_history WHERE task_id = ${taskId} ORDER BY version`.execute(db);
  return rows.map((r) => ({ ...r, at: new Date(r.at).getTime(), cause: fromJson<TaskCause>(r.cause), caller: r.caller === null ? null : fromJson<ApiCaller>(r.caller) }));
}
