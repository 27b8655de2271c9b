import type { TaskConsumeLogEntry } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { CONSUME_COLUMNS, consumeFromRow, type ConsumeRow } from "../task-rows.js";

/**
 * Serializes transactions on one event id with a transaction-scoped advisory lock (two-int form:
 * a class of its own, then `hashtext(event_id)`; a hash collision only makes two events wait for
 * each other), then reads the row in a new statement, so a commit made while we waited is seen.
 * No placeholder row is written: a rollback leaves nothing behind.
 */
export async function claimConsume(db: Kysely<any>, lockClass: number, eventId: string): Promise<TaskConsumeLogEntry | undefined> {
  await sql`SELECT pg_advisory_xact_lock(${lockClass}::int4, hashtext(${eventId}))`.execute(db);
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE event_id = ${eventId}`.execute(db);
  return rows[0] === undefined ? undefined : consumeFromRow(rows[0]);
}
