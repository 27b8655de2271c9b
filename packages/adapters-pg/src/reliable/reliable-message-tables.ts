import type { ColumnType } from "kysely";
import type { Int8, Jsonb, Timestamp } from "../rows/column-types.js";

/** `reliable_message` (migrations `reliableMessageMigration`, `reliableMessageServiceMigration`, `reliableMessageDeliverAtMigration`, `reliableMessageKeyOrderMigration`). */
export interface ReliableMessageTable {
  message_id: string;
  version: number;
  message_body: string;
  message_data_type: string | null;
  consumer_queue: string;
  /** WAITING_CONFIRM, SENDING, ACKNOWLEDGED or CANCELLED. */
  status: string;
  send_count: ColumnType<number, number | undefined, number>;
  dead: ColumnType<boolean, boolean | undefined, boolean>;
  check_count: ColumnType<number, number | undefined, number>;
  next_check_at: Timestamp | null;
  last_sent_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  confirmed_at: Timestamp | null;
  remark: string | null;
  field1: string | null;
  field2: string | null;
  field3: string | null;
  /** EVENT_ID of the last send's `msg_event` row. */
  last_event_id: Int8 | null;
  reject_count: ColumnType<number, number | undefined, number>;
  rejected_at: Timestamp | null;
  last_error: string | null;
  check_delay_ms: Int8 | null;
  /** The delivery time asked for at the prepare; NULL for "at the confirm" (`reliableMessageDeliverAtMigration`). */
  deliver_at: Timestamp | null;
  /** The producer's business key (`reliableMessageKeyOrderMigration`). */
  message_key: string | null;
  /** The confirm sequence on a queue ordered by key (`reliable_message_order_seq`), NULL otherwise. */
  order_seq: Int8 | null;
  /** Extra record headers (a JSON object of strings); NULL for none. */
  headers: Jsonb | null;
}

/** `reliable_message_subscription`: one message's delivery to one subscription (`reliableMessageSubscriptionsMigration`). */
export interface ReliableMessageSubscriptionTable {
  message_id: string;
  subscription: string;
  /** SENDING or ACKNOWLEDGED. */
  status: string;
  send_count: number;
  dead: boolean;
  next_check_at: Timestamp | null;
  last_sent_at: Timestamp | null;
  last_event_id: Int8 | null;
  reject_count: number;
  rejected_at: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** `reliable_message_consume_log`, in a consumer's own database (`reliableMessageConsumeLogMigration`). */
export interface ReliableMessageConsumeLogTable {
  message_id: string;
  consumer_queue: string;
  send_count: number;
  consumed_at: Timestamp;
}

/** The table the reliable-message store adds to msgx's database (its outbox rows go to `msg_event`). */
export interface ReliableMessageDatabase {
  reliable_message: ReliableMessageTable;
  reliable_message_subscription: ReliableMessageSubscriptionTable;
}

/**
 * The least a consumer's database holds for `PgConsumeLog`: its own tables come on top (a
 * `Kysely<ConsumerDb>` whose `ConsumerDb` has this table, or any other: the log speaks raw SQL).
 */
export interface ReliableMessageConsumeLogDatabase {
  reliable_message_consume_log: ReliableMessageConsumeLogTable;
}
