import type { SubscriptionDelivery } from "@msgx/reliable";
import { sql } from "kysely";
import type { Db } from "../queries/db.js";
import { toMs, toMsOrNull, toNumber } from "../rows/values.js";
import { ts } from "./reliable-message-row.js";

/** A `reliable_message_subscription` row as the drivers return it. */
interface DeliveryRow {
  readonly message_id: string;
  readonly subscription: string;
  readonly status: string;
  readonly send_count: unknown;
  readonly dead: boolean;
  readonly next_check_at: unknown;
  readonly last_sent_at: unknown;
  readonly last_event_id: unknown;
  readonly reject_count: unknown;
  readonly rejected_at: unknown;
  readonly last_error: string | null;
  readonly created_at: unknown;
  readonly updated_at: unknown;
}

const COLUMNS =
  "message_id, subscription, status, send_count, dead, next_check_at, last_sent_at, last_event_id, reject_count, rejected_at, last_error, created_at, updated_at";

const fromRow = (r: DeliveryRow): SubscriptionDelivery => ({
  messageId: r.message_id,
  subscription: r.subscription,
  status: r.status as SubscriptionDelivery["status"],
  sendCount: toNumber(r.send_count),
  dead: r.dead,
  nextCheckAt: toMsOrNull(r.next_check_at),
  lastSentAt: toMsOrNull(r.last_sent_at),
  lastEventId: r.last_event_id === null || r.last_event_id === undefined ? null : toNumber(r.last_event_id),
  rejectCount: toNumber(r.reject_count),
  rejectedAt: toMsOrNull(r.rejected_at),
  lastError: r.last_error,
  createdAt: toMs(r.created_at),
  updatedAt: toMs(r.updated_at),
});

/**
 * Writes `d` (insert, or replace the row of its message and subscription) with `lastEventId` the
 * given send's EVENT_ID when it sent. Its message's row is already locked by the compare-and-set
 * of the same transaction, so no other writer touches this row meanwhile.
 */
export async function upsertDelivery(db: Db, d: SubscriptionDelivery, sendEventId: number | null): Promise<void> {
  const set = COLUMNS.split(", ").slice(2).map((c) => `${c} = EXCLUDED.${c}`).join(", ");
  await sql`
    INSERT INTO reliable_message_subscription (${sql.raw(COLUMNS)}) VALUES (
      ${d.messageId}, ${d.subscription}, ${d.status}, ${d.sendCount}::integer, ${d.dead}::boolean, ${ts(d.nextCheckAt)}, ${ts(d.lastSentAt)},
      ${sendEventId ?? d.lastEventId}::bigint, ${d.rejectCount}::integer, ${ts(d.rejectedAt)}, ${d.lastError}, ${ts(d.createdAt)}, ${ts(d.updatedAt)})
    ON CONFLICT (message_id, subscription) DO UPDATE SET ${sql.raw(set)}`.execute(db);
}

/** The deliveries of one message, by subscription (code-point order: the column is `COLLATE "C"`). */
export async function messageDeliveries(db: Db, messageId: string): Promise<SubscriptionDelivery[]> {
  const { rows } = await sql<DeliveryRow>`
    SELECT ${sql.raw(COLUMNS)} FROM reliable_message_subscription WHERE message_id = ${messageId} ORDER BY subscription`.execute(db);
  return rows.map(fromRow);
}

/** Due deliveries, served by `reliable_message_subscription_due_idx` (the predicate repeats its own). */
export async function dueDeliveries(db: Db, now: number, limit: number): Promise<SubscriptionDelivery[]> {
  const { rows } = await sql<DeliveryRow>`
    SELECT ${sql.raw(COLUMNS)} FROM reliable_message_subscription
    WHERE status = 'SENDING' AND NOT dead AND next_check_at <= ${ts(now)}
    ORDER BY next_check_at, message_id, subscription LIMIT ${limit}::integer`.execute(db);
  return rows.map(fromRow);
}

/**
 * A keyset page of the DEAD deliveries of `queue`'s messages, by message id then subscription (the
 * join reads the queue's messages through `reliable_message_queue_idx`; an operator's bulk replay).
 */
export async function scanDeadDeliveries(db: Db, queue: string, after: { readonly messageId: string; readonly subscription: string } | null, limit: number): Promise<SubscriptionDelivery[]> {
  const cols = sql.raw(COLUMNS.split(", ").map((c) => `d.${c}`).join(", "));
  const from = after === null ? sql`TRUE` : sql`(d.message_id, d.subscription) > (${after.messageId}, ${after.subscription})`;
  const { rows } = await sql<DeliveryRow>`
    SELECT ${cols} FROM reliable_message_subscription d JOIN reliable_message m ON m.message_id = d.message_id
    WHERE m.consumer_queue = ${queue} AND d.status = 'SENDING' AND d.dead AND ${from}
    ORDER BY d.message_id, d.subscription LIMIT ${limit}::integer`.execute(db);
  return rows.map(fromRow);
}

/** Deliveries per queue, subscription, status and dead flag (one grouped count), ascending by queue then subscription (both `COLLATE "C"`). */
export async function countDeliveriesBySubscription(db: Db): Promise<{ queue: string; subscription: string; status: string; dead: boolean; n: number }[]> {
  const { rows } = await sql<{ queue: string; subscription: string; status: string; dead: boolean; n: unknown }>`
    SELECT m.consumer_queue AS queue, d.subscription, d.status, d.dead, count(*) AS n
    FROM reliable_message_subscription d JOIN reliable_message m ON m.message_id = d.message_id
    GROUP BY m.consumer_queue, d.subscription, d.status, d.dead ORDER BY m.consumer_queue, d.subscription`.execute(db);
  return rows.map((r) => ({ queue: r.queue, subscription: r.subscription, status: r.status, dead: r.dead, n: toNumber(r.n) }));
}
