import type { ReliableMessageFilter } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { ts } from "../reliable-message-row.js";

/** The WHERE conditions of a `ReliableMessageFilter` (always at least `TRUE`), joined by AND. */
export function filterSql(f: ReliableMessageFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`TRUE`];
  if (f.consumerQueue !== undefined) parts.push(sql`consumer_queue = ${f.consumerQueue}`);
  if (f.status !== undefined) parts.push(sql`status = ${f.status}`);
  if (f.dead !== undefined) parts.push(sql`dead = ${f.dead}::boolean`);
  if (f.createdBefore !== undefined) parts.push(sql`created_at < ${ts(f.createdBefore)}`);
  if (f.createdFrom !== undefined) parts.push(sql`created_at >= ${ts(f.createdFrom)}`);
  if (f.messageIds !== undefined) parts.push(sql`message_id = ANY(${[...f.messageIds]}::text[])`);
  return sql.join(parts, sql` AND `);
}
