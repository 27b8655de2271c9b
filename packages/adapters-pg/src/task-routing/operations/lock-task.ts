import type { TaskRecord } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { TASK_COLUMNS, taskFromRow, type TaskRow } from "../task-rows.js";

/** The task, row-locked until the transaction ends (`FOR UPDATE`). */
export async function lockTask(db: Kysely<any>, taskId: string): Promise<TaskRecord | undefined> {
  const { rows } = await sql<TaskRow>`SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE task_id = ${taskId} FOR UPDATE`.execute(db);
  return rows[0] === undefined ? undefined : taskFromRow(rows[0]);
}
