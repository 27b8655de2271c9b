import type { TaskConsumeLogEntry, TaskConsumeLogFilter } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { CONSUME_COLUMNS, consumeFromRow, type ConsumeRow } from "../task-rows.js";

export async function getConsume(db: Kysely<any>, eventId: string): Promise<TaskConsumeLogEntry | undefined> {
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE event_id = ${eventId}`.execute(db);
  return rows[0] === undefined ? undefined : consumeFromRow(rows[0]);
}

export async function listConsume(db: Kysely<any>, f: TaskConsumeLogFilter): Promise<TaskConsumeLogEntry[]> {
  const where = [sql`true`];
  if (f.statuses !== undefined) where.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.callbackStatuses !== undefined) where.push(sql`callback_status = ANY(${[...f.callbackStatuses]}::text[])`);
  if (f.taskId !== undefined) where.push(sql`task_id = ${f.taskId}`);
  const limit = f.limit === undefined ? sql`` : sql`LIMIT ${f.limit}`;
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE ${sql.join(where, sql` AND `)}
    ORDER BY event_id ${limit}`.execute(db);
  return rows.map(consumeFromRow);
}
