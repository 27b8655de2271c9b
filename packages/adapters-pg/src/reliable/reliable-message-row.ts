import type { ReliableMessageStatus, ReliableMessage } from "@msgx/reliable";
import { sql, type RawBuilder } from "kysely";
import { fromJson, toMs, toMsOrNull, toNumber } from "../rows/values.js";

/** A `reliable_message` row as the drivers return it. */
export interface ReliableMessageRow {
  readonly message_id: string;
  readonly version: unknown;
  readonly message_body: string;
  readonly message_data_type: string | null;
  readonly consumer_queue: string;
  readonly status: string;
  readonly send_count: unknown;
  readonly dead: boolean;
  readonly check_count: unknown;
  readonly next_check_at: unknown;
  readonly last_sent_at: unknown;
  readonly created_at: unknown;
  readonly updated_at: unknown;
  readonly confirmed_at: unknown;
  readonly remark: string | null;
  readonly field1: string | null;
  readonly field2: string | null;
  readonly field3: string | null;
  readonly headers: unknown;
  readonly check_delay_ms: unknown;
  readonly deliver_at: unknown;
  readonly message_key: string | null;
  readonly order_seq: unknown;
  readonly last_event_id: unknown;
  readonly reject_count: unknown;
  readonly rejected_at: unknown;
  readonly last_error: string | null;
}

/** Every column, in the order `messageValues` gives them. */
export const MESSAGE_COLUMNS =
  "message_id, version, message_body, message_data_type, consumer_queue, status, send_count, dead, check_count, " +
  "next_check_at, last_sent_at, created_at, updated_at, confirmed_at, remark, field1, field2, field3, " +
  "headers, check_delay_ms, last_event_id, reject_count, rejected_at, last_error, deliver_at, message_key, order_seq";

export const messageFromRow = (r: ReliableMessageRow): ReliableMessage => ({
  messageId: r.message_id,
  version: toNumber(r.version),
  body: r.message_body,
  dataType: r.message_data_type,
  consumerQueue: r.consumer_queue,
  status: r.status as ReliableMessageStatus,
  sendCount: toNumber(r.send_count),
  dead: r.dead,
  checkCount: toNumber(r.check_count),
  nextCheckAt: toMsOrNull(r.next_check_at),
  lastSentAt: toMsOrNull(r.last_sent_at),
  createdAt: toMs(r.created_at),
  updatedAt: toMs(r.updated_at),
  confirmedAt: toMsOrNull(r.confirmed_at),
  remark: r.remark,
  field1: r.field1,
  field2: r.field2,
  field3: r.field3,
  headers: r.headers === null || r.headers === undefined ? null : fromJson<Record<string, string>>(r.headers),
  checkDelayMs: r.check_delay_ms === null || r.check_delay_ms === undefined ? null : toNumber(r.check_delay_ms),
  lastEventId: r.last_event_id === null || r.last_event_id === undefined ? null : toNumber(r.last_event_id),
  rejectCount: toNumber(r.reject_count),
  rejectedAt: toMsOrNull(r.rejected_at),
  lastError: r.last_error,
  deliverAt: toMsOrNull(r.deliver_at),
  key: r.message_key ?? null,
  orderSeq: r.order_seq === null || r.order_seq === undefined ? null : toNumber(r.order_seq),
});

/** An epoch-millisecond instant as a `timestamptz` parameter (exact to the millisecond). */
export const ts = (ms: number | null): RawBuilder<Date | null> =>
  ms === null ? sql<null>`NULL::timestamptz` : sql<Date>`${new Date(ms).toISOString()}::timestamptz`;

/** The values of `m` in `MESSAGE_COLUMNS` order, as one parenthesized list. */
export const messageValues = (m: ReliableMessage): RawBuilder<unknown> => sql`(
  ${m.messageId}, ${m.version}::integer, ${m.body}, ${m.dataType}, ${m.consumerQueue}, ${m.status}, ${m.sendCount}::integer,
  ${m.dead}::boolean, ${m.checkCount}::integer, ${ts(m.nextCheckAt)}, ${ts(m.lastSentAt)}, ${ts(m.createdAt)}, ${ts(m.updatedAt)},
  ${ts(m.confirmedAt)}, ${m.remark}, ${m.field1}, ${m.field2}, ${m.field3},
  ${m.headers === null ? null : JSON.stringify(m.headers)}::jsonb, ${m.checkDelayMs}::bigint, ${m.lastEventId}::bigint,
  ${m.rejectCount}::integer, ${ts(m.rejectedAt)}, ${m.lastError}, ${ts(m.deliverAt)}, ${m.key}, ${m.orderSeq}::bigint)`;
