import type { ConsumeLogEntry, ReliableMessage, ReliableMessageFilter, ReliableMessagePage, ReliableMessageStatus } from "@msgx/reliable";
import { sql, type QueryExecutorProvider, type RawBuilder } from "kysely";
import { MESSAGE_COLUMNS, messageFromRow, messageValues, ts, type ReliableMessageRow } from "./reliable-message-row.js";
import { toNumber } from "../rows/values.js";
import type { Db } from "../queries/db.js";

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

/** Inserts `message` unless its id is taken; true when it was inserted. */
export async function insertMessage(db: Db, message: ReliableMessage): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO reliable_message (${sql.raw(MESSAGE_COLUMNS)}) VALUES ${messageValues(message)}
    ON CONFLICT (message_id) DO NOTHING RETURNING message_id`.execute(db);
  return rows.length === 1;
}

/** One message by id (a primary-key probe). */
export async function getMessage(db: Db, messageId: string): Promise<ReliableMessage | undefined> {
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message WHERE message_id = ${messageId}`.execute(db);
  return rows[0] === undefined ? undefined : messageFromRow(rows[0]);
}

/**
 * Replaces the row of `message.messageId` if it still has `expectedVersion`; true when it did.
 * Under READ COMMITTED a concurrent writer's update is waited for and the version re-checked on
 * the row it committed, so at most one of two writers expecting the same version succeeds.
 */
export async function updateMessage(db: Db, message: ReliableMessage, expectedVersion: number): Promise<boolean> {
  const { rows } = await sql`
    UPDATE reliable_message SET (${sql.raw(MESSAGE_COLUMNS)}) = ROW ${messageValues(message)}
    WHERE message_id = ${message.messageId} AND version = ${expectedVersion}::integer
    RETURNING message_id`.execute(db);
  return rows.length === 1;
}

/**
 * Replaces, in one statement, the row of each of `messages` (distinct ids) that is still at the
 * version just before the message's own; the ids it replaced. Under READ COMMITTED a concurrent
 * writer's update is waited for and the version re-checked, as in `updateMessage`.
 */
export async function updateMessagesToNextVersion(db: Db, messages: readonly ReliableMessage[]): Promise<Set<string>> {
  const set = sql.raw(MESSAGE_COLUMNS.split(", ").map((c) => `${c} = v.${c}`).join(", "));
  const { rows } = await sql<{ message_id: string }>`
    UPDATE reliable_message AS m SET ${set}
    FROM (VALUES ${sql.join(messages.map(messageValues))}) AS v (${sql.raw(MESSAGE_COLUMNS)})
    WHERE m.message_id = v.message_id COLLATE "C" AND m.version = v.version - 1
    RETURNING m.message_id`.execute(db);
  return new Set(rows.map((r) => r.message_id));
}

/** Which of `messageIds` are stored (a primary-key probe each). */
export async function storedMessageIds(db: Db, messageIds: readonly string[]): Promise<Set<string>> {
  const { rows } = await sql<{ message_id: string }>`
    SELECT message_id FROM reliable_message WHERE message_id = ANY(${[...messageIds]}::text[])`.execute(db);
  return new Set(rows.map((r) => r.message_id));
}

/** Deletes the row of `messageId` if it still has `expectedVersion`; true when it did. */
export async function deleteMessage(db: Db, messageId: string, expectedVersion: number): Promise<boolean> {
  const { rows } = await sql`
    DELETE FROM reliable_message WHERE message_id = ${messageId} AND version = ${expectedVersion}::integer
    RETURNING message_id`.execute(db);
  return rows.length === 1;
}

/**
 * The rule of `key-order.ts` as one predicate: `o` is a message of `m`'s queue and key confirmed
 * before it (a smaller `order_seq`) that is not finished. Served by `reliable_message_key_order_idx`
 * (the predicate repeats its status list; `o.order_seq < …` implies its `IS NOT NULL`).
 */
const olderUnfinishedOfKeySql = (m: string, o: string): RawBuilder<unknown> =>
  sql.raw(`${o}.consumer_queue = ${m}.consumer_queue AND ${o}.message_key = ${m}.message_key AND ${o}.order_seq < ${m}.order_seq AND ${o}.status NOT IN ('ACKNOWLEDGED','CANCELLED')`);

/** `m` is held by its key: an older message of its key is not finished (`key-order.ts`). */
export const heldByKeySql = (m: string): RawBuilder<unknown> =>
  sql`(${sql.raw(m)}.order_seq IS NOT NULL AND EXISTS (SELECT 1 FROM reliable_message AS held_by WHERE ${olderUnfinishedOfKeySql(m, "held_by")}))`;

/**
 * Due messages of one status, served by `reliable_message_due_idx` (the predicate repeats its
 * `NOT dead`), without the ones held by their key.
 */
export async function dueMessages(db: Db, status: ReliableMessageStatus, now: number, limit: number): Promise<ReliableMessage[]> {
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message AS m
    WHERE status = ${status} AND NOT dead AND next_check_at <= ${ts(now)} AND NOT ${heldByKeySql("m")}
    ORDER BY status, next_check_at, message_id
    LIMIT ${limit}::integer`.execute(db);
  return rows.map(messageFromRow);
}

/** The unfinished message of `queue`'s `key` with the smallest `order_seq`, over the key-order index (its predicate repeated). */
export async function headOfKeyMessage(db: Db, queue: string, key: string): Promise<ReliableMessage | undefined> {
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message
    WHERE consumer_queue = ${queue} AND message_key = ${key} AND order_seq IS NOT NULL AND status NOT IN ('ACKNOWLEDGED','CANCELLED')
    ORDER BY order_seq LIMIT 1`.execute(db);
  return rows[0] === undefined ? undefined : messageFromRow(rows[0]);
}

/** Held messages (`heldByKeySql`), and of them those with a DEAD older unfinished message of their key; over the key-order index. */
export async function countHeldMessages(db: Db): Promise<{ behindDead: number; behindLive: number }> {
  const { rows } = await sql<{ held: unknown; behind_dead: unknown }>`
    SELECT count(*) AS held,
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM reliable_message AS o WHERE ${olderUnfinishedOfKeySql("m", "o")} AND o.dead)) AS behind_dead
    FROM reliable_message AS m
    WHERE m.order_seq IS NOT NULL AND m.status NOT IN ('ACKNOWLEDGED','CANCELLED') AND ${heldByKeySql("m")}`.execute(db);
  const held = toNumber(rows[0]?.held ?? 0);
  const behindDead = toNumber(rows[0]?.behind_dead ?? 0);
  return { behindDead, behindLive: held - behindDead };
}

/** The oldest unfinished message of `messageId`'s key confirmed before it (what it waits for), or undefined. */
export async function heldBehindMessage(db: Db, messageId: string): Promise<ReliableMessage | undefined> {
  const columns = sql.raw(MESSAGE_COLUMNS.split(", ").map((c) => `o.${c}`).join(", "));
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${columns} FROM reliable_message AS m JOIN reliable_message AS o ON ${olderUnfinishedOfKeySql("m", "o")}
    WHERE m.message_id = ${messageId}
    ORDER BY o.order_seq LIMIT 1`.execute(db);
  return rows[0] === undefined ? undefined : messageFromRow(rows[0]);
}

/**
 * Gives `messageId` (just written, row locked) the next confirm sequence number of its key. The
 * transaction first takes the key's advisory lock, held until it ends: a later confirm of the key
 * waits for this one to commit before drawing its number, so the numbers of a key ascend in commit
 * order and a reader never sees a key's newer number without its older ones. Two keys whose hashes
 * collide only wait for each other.
 */
export async function assignOrderSeq(db: Db, messageId: string, queue: string, key: string): Promise<number> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${queue}), hashtext(${key}))`.execute(db);
  const { rows } = await sql<{ order_seq: unknown }>`
    UPDATE reliable_message SET order_seq = nextval('reliable_message_order_seq') WHERE message_id = ${messageId}
    RETURNING order_seq`.execute(db);
  return toNumber(rows[0]!.order_seq);
}

/** Records the EVENT_ID of the send just written for `messageId` (same transaction, row already locked by its write). */
export async function setLastEventId(db: Db, messageId: string, eventId: number): Promise<void> {
  await sql`UPDATE reliable_message SET last_event_id = ${eventId}::bigint WHERE message_id = ${messageId}`.execute(db);
}

/**
 * Deletes up to `limit` finished messages changed before `before`, oldest first, in one statement
 * served by `reliable_message_finished_idx` (the predicate repeats its status list); how many.
 */
export async function purgeFinishedMessages(db: Db, before: number, limit: number): Promise<number> {
  const { rows } = await sql`
    DELETE FROM reliable_message WHERE message_id IN (
      SELECT message_id FROM reliable_message
      WHERE status IN ('ACKNOWLEDGED','CANCELLED') AND updated_at < ${ts(before)}
      ORDER BY updated_at, message_id LIMIT ${limit}::integer
      FOR UPDATE SKIP LOCKED)
    RETURNING message_id`.execute(db);
  return rows.length;
}

/** Messages per (status, dead): one grouped count over the table. */
export async function countMessagesByState(db: Db): Promise<{ status: string; dead: boolean; n: number }[]> {
  const { rows } = await sql<{ status: string; dead: boolean; n: unknown }>`
    SELECT status, dead, count(*) AS n FROM reliable_message GROUP BY status, dead`.execute(db);
  return rows.map((r) => ({ status: r.status, dead: r.dead, n: toNumber(r.n) }));
}

/** Rows per queue, status and dead flag (one grouped count), ascending by queue (the column is `COLLATE "C"`). */
export async function countMessagesByQueue(db: Db): Promise<{ queue: string; status: string; dead: boolean; n: number }[]> {
  const { rows } = await sql<{ queue: string; status: string; dead: boolean; n: unknown }>`
    SELECT consumer_queue AS queue, status, dead, count(*) AS n FROM reliable_message
    GROUP BY consumer_queue, status, dead ORDER BY consumer_queue`.execute(db);
  return rows.map((r) => ({ queue: r.queue, status: r.status, dead: r.dead, n: toNumber(r.n) }));
}

/** Keyset page by message id (code-point order: the column is `COLLATE "C"`). */
export async function scanMessages(db: Db, filter: ReliableMessageFilter, afterMessageId: string | null, limit: number): Promise<ReliableMessage[]> {
  const after = afterMessageId === null ? sql`TRUE` : sql`message_id > ${afterMessageId}`;
  const { rows } = await sql<ReliableMessageRow>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)} FROM reliable_message
    WHERE ${filterSql(filter)} AND ${after}
    ORDER BY message_id LIMIT ${limit}::integer`.execute(db);
  return rows.map(messageFromRow);
}

/**
 * One page of the listing with the total count (a window count over the matching rows). Only a
 * page past the end, which has no row to carry the count, costs a second statement.
 */
export async function listMessagesPage(db: Db, filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage> {
  const where = filterSql(filter);
  const { rows } = await sql<ReliableMessageRow & { readonly total: unknown }>`
    SELECT ${sql.raw(MESSAGE_COLUMNS)}, count(*) OVER () AS total
    FROM reliable_message WHERE ${where}
    ORDER BY created_at, message_id
    LIMIT ${pageSize}::integer OFFSET ${(pageNum - 1) * pageSize}::bigint`.execute(db);
  let total = rows[0] === undefined ? 0 : toNumber(rows[0].total);
  if (rows.length === 0 && pageNum > 1) {
    const counted = await sql<{ n: unknown }>`SELECT count(*) AS n FROM reliable_message WHERE ${where}`.execute(db);
    total = toNumber(counted.rows[0]?.n ?? 0);
  }
  return { items: rows.map(messageFromRow), pageNum, pageSize, total, totalPages: Math.ceil(total / pageSize) };
}

/**
 * Records a consumed message id; false when it is already recorded. An uncommitted claim of the
 * same id by another transaction makes this one wait on the unique index until that one ends.
 */
export async function claimConsume(db: QueryExecutorProvider, entry: ConsumeLogEntry): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO reliable_message_consume_log (message_id, consumer_queue, send_count, consumed_at)
    VALUES (${entry.messageId}, ${entry.consumerQueue}, ${entry.sendCount}::integer, ${ts(entry.consumedAt)})
    ON CONFLICT (message_id) DO NOTHING RETURNING message_id`.execute(db);
  return rows.length === 1;
}
