import type { TaskFilter, TaskRecord } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, TASK_COLUMNS, taskFromRow, type TaskRow } from "../task-rows.js";

export async function listTasks(db: Kysely<any>, f: TaskFilter): Promise<TaskRecord[]> {
  const where = [sql`true`];
  if (f.statuses !== undefined) where.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.ownerService !== undefined) where.push(sql`owner_service = ${f.ownerService}`);
  if (f.updatedBefore !== undefined) where.push(sql`updated_at <= ${at(f.updatedBefore)}`);
  if (f.afterTaskId !== undefined) where.push(sql`task_id > ${f.afterTaskId}`);
  const limit = f.limit === undefined ? sql`` : sql`LIMIT ${f.limit}`;
  const { rows } = await sql<TaskRow>`
    SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE ${sql.join(where, sql` AND `)}
    ORDER BY task_id ${limit}`.execute(db);
  return rows.map(taskFromRow);
}
