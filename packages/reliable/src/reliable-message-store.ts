import type { LineageQuery, OutboxEventDraft } from "@msgx/core";
import type { ReliableMessageHistoryEntry, ReliableMessageHistoryPage } from "./message-history.js";
import type { ReliableMessagePhase, ReliableMessageStatus, ReliableMessage } from "./reliable-message.js";
import type { SubscriptionDelivery } from "./subscription-delivery.js";

/**
 * A subscription's delivery written with a message change (an upsert by message id and
 * subscription): its `send` row (to the subscription's topic) sets its `lastEventId` like a
 * message's send; its `deadLetter` row is written beside it.
 */
export interface SubscriptionDeliveryWrite {
  readonly delivery: SubscriptionDelivery;
  readonly send: OutboxEventDraft | null;
  readonly deadLetter?: OutboxEventDraft | null;
}

/**
 * One atomic change of the store. A `send` is an outbox row (`MSG_EVENT`) to the queue's topic
 * written in the same transaction as the message change: both commit or neither does; the store
 * stores the message with `lastEventId` = that row's EVENT_ID (whatever `message.lastEventId`
 * says). A `deadLetter` is an outbox row to the dead-letter target, written the same way but not
 * a send (`lastEventId` unchanged).
 *
 * - `insert`: the message must not exist (else conflict `exists`).
 * - `update`: the stored message must have `expectedVersion` (else `changed`, or `missing` when
 *   it is gone); it is replaced by `message` (same `messageId`).
 * - `delete`: the stored message must have `expectedVersion` (else `changed` / `missing`).
 * - `send`: only an outbox row, no message (seed `directSendMessage`).
 *
 * `deliveries` (insert and update): the subscription deliveries the change writes, in the same
 * transaction and under the same compare-and-set on the message: a delivery changes only with
 * its message's `version`, so two acknowledgements of different subscriptions never both miss
 * that they were the last.
 *
 * An `insert` or `update` carrying `history` appends that entry to the message's history in the
 * same transaction (`runReliableMessageCommand` always gives one), or folds it into the newest
 * entry when `collapsesInto` says so (a run of outage rechecks); a `delete` removes the history.
 *
 * `sequence` (insert, update): the message is confirmed on a queue ordered by key; the store
 * stores it with the next confirm sequence number (`orderSeq`, whatever `message.orderSeq` says),
 * assigned in the same transaction after every earlier assignment to the same queue and key has
 * committed, so the numbers of a key ascend in commit order (`key-order.ts`).
 */
export type ReliableMessageWrite =
  | { readonly op: "insert"; readonly message: ReliableMessage; readonly send: OutboxEventDraft | null; readonly history?: ReliableMessageHistoryEntry | null; readonly deliveries?: readonly SubscriptionDeliveryWrite[]; readonly sequence?: boolean }
  | {
      readonly op: "update";
      readonly expectedVersion: number;
      readonly message: ReliableMessage;
      readonly send: OutboxEventDraft | null;
      readonly deadLetter?: OutboxEventDraft | null;
      readonly deliveries?: readonly SubscriptionDeliveryWrite[];
      readonly history?: ReliableMessageHistoryEntry | null;
      readonly sequence?: boolean;
    }
  | { readonly op: "delete"; readonly messageId: string; readonly expectedVersion: number }
  | { readonly op: "send"; readonly send: OutboxEventDraft };

/** Why a compare-and-set write was not applied (nothing of it was written). */
export type ReliableMessageWriteConflict = "exists" | "changed" | "missing";

export type ReliableMessageWriteResult =
  | {
      readonly ok: true;
      /** The EVENT_ID of the send's outbox row (of the dead-letter row when only that was written), null when the write wrote no row. */
      readonly eventId: number | null;
      /** The `orderSeq` the write assigned (a write with `sequence` only). */
      readonly orderSeq?: number;
    }
  | { readonly ok: false; readonly conflict: ReliableMessageWriteConflict };

/** How many stored messages are in each phase (every phase but ABSENT, zeros included). */
export type ReliableMessagePhaseCounts = Readonly<Record<Exclude<ReliableMessagePhase, "ABSENT">, number>>;

/** The phase counts of one consumer queue. */
export interface ReliableQueueCounts {
  readonly queue: string;
  readonly phases: ReliableMessagePhaseCounts;
}

/** How many deliveries of one subscription of one queue are in each delivery phase (zeros included). */
export interface SubscriptionDeliveryCounts {
  readonly queue: string;
  readonly subscription: string;
  readonly phases: Readonly<Record<SubscriptionDeliveryPhase, number>>;
}

/** The phases a subscription delivery can be in (`subscriptionPhase`). */
export type SubscriptionDeliveryPhase = "SENDING" | "DEAD" | "ACKNOWLEDGED";

/** Messages held by their key: behind a DEAD older message of the key, or behind live ones only. */
export interface HeldCounts {
  readonly behindDead: number;
  readonly behindLive: number;
}

/** Which messages to list or scan; every field optional, all given ones must hold. */
export interface ReliableMessageFilter {
  readonly consumerQueue?: string;
  readonly status?: ReliableMessageStatus;
  readonly dead?: boolean;
  /** Only messages created before this instant (exclusive). */
  readonly createdBefore?: number;
  /** Only messages created at or after this instant. */
  readonly createdFrom?: number;
  readonly messageIds?: readonly string[];
}

/** A page of the listing (seed `PageBean`): 1-based page number. */
export interface ReliableMessagePage {
  readonly items: readonly ReliableMessage[];
  readonly pageNum: number;
  readonly pageSize: number;
  readonly total: number;
  readonly totalPages: number;
}

/**
 * The message store of the reliable-message service (seed `rp_transaction_message`, in
 * PostgreSQL), beside the outbox the relay reads.
 *
 * Every implementation guarantees:
 * - `commit` (and `commitMany`, for all its writes) is one transaction: the compare-and-set on the message, the message change and the
 *   outbox row all commit together or not at all. A lost compare-and-set writes nothing and
 *   returns the conflict; it never throws for it. Outbox rows are PENDING with EVENT_IDs from the
 *   same sequence the pipeline uses, so the relay delivers them in commit order per target.
 * - A write with a `send` stores the message with `lastEventId` = the send row's EVENT_ID, in the
 *   same transaction; a `deadLetter` row commits the same way and leaves `lastEventId` alone.
 * - Two concurrent writes expecting the same version: at most one succeeds.
 * - Reads return committed data. Times are epoch milliseconds, stored to the millisecond.
 * - Driver errors leave as `MsgxError`: connection loss and timeouts as `DEPENDENCY_UNAVAILABLE`,
 *   a connection lost during COMMIT as `COMMIT_UNKNOWN` (the caller re-reads), a constraint the
 *   database refuses as `INFRA`.
 */
export interface ReliableMessageStore {
  /** Applies one write atomically (see {@link ReliableMessageWrite}). */
  commit(write: ReliableMessageWrite): Promise<ReliableMessageWriteResult>;

  /**
   * Applies `writes` in one transaction, in order: each is applied or answered with its conflict
   * exactly as `commit` would (a lost compare-and-set writes nothing of that write and leaves the
   * others be); every applied one, with its outbox rows, commits together. One result per write, in
   * the order given. A driver error (an outbox row refused, the connection lost) writes nothing of
   * the whole batch and throws as `commit` does. An empty batch writes nothing.
   */
  commitMany(writes: readonly ReliableMessageWrite[]): Promise<readonly ReliableMessageWriteResult[]>;

  /**
   * The history of the message (its lineage): every entry written with its changes, oldest first
   * (ascending `version`); empty for an unknown message. Entries leave only with their message
   * (an operator delete, the retention purge).
   */
  history(messageId: string): Promise<readonly ReliableMessageHistoryEntry[]>;

  /**
   * One page of the message's history, newest first (descending `version`): at most
   * `query.limit` entries below `query.beforeVersion` when given, and `next`, the `beforeVersion`
   * of the page after it (null on the last). Empty for an unknown message.
   */
  historyPage(messageId: string, query: LineageQuery): Promise<ReliableMessageHistoryPage>;

  /** The message with that id, or undefined. */
  get(messageId: string): Promise<ReliableMessage | undefined>;

  /**
   * The subscription deliveries of a message, ascending by subscription name (code-point order);
   * none for an unknown message or one of a queue without subscriptions. Deleted with the message
   * (operator delete, retention purge).
   */
  deliveries(messageId: string): Promise<readonly SubscriptionDelivery[]>;

  /**
   * Deliveries SENDING, not dead, whose `nextCheckAt` is at or before `now`, oldest `nextCheckAt`
   * first (ties by message id, then subscription), at most `limit`: the recovery job's work,
   * served by an index like `due`.
   */
  dueDeliveries(now: number, limit: number): Promise<readonly SubscriptionDelivery[]>;

  /**
   * Keyset scan of the DEAD deliveries of messages of `queue` (for the bulk replay): those after
   * `after` in (message id, subscription) order (code points), at most `limit`. A replay that
   * changes what it scans does not skip or repeat a delivery.
   */
  scanDeadDeliveries(queue: string, after: { readonly messageId: string; readonly subscription: string } | null, limit: number): Promise<readonly SubscriptionDelivery[]>;

  /**
   * Messages of `status` that are not dead and whose `nextCheckAt` is at or before `now`, oldest
   * `nextCheckAt` first (ties by `messageId`), at most `limit`. Served by an index, whatever the
   * table size: the jobs call it every pass. A message held by its key (`key-order.ts`: an older
   * message of its key is not finished) is left out, so the recovery job never sends it early.
   */
  due(status: ReliableMessageStatus, now: number, limit: number): Promise<readonly ReliableMessage[]>;

  /**
   * What the message `messageId` waits for under per-key order (`key-order.ts`): the oldest
   * message of its queue and key confirmed before it that is not finished; undefined when it is
   * not held (or unknown, or not ordered).
   */
  heldBehind(messageId: string): Promise<ReliableMessage | undefined>;

  /**
   * How many messages are held by their key (`key-order.ts`), split by whether an older message
   * of the key is DEAD (an operator must settle it) or all older unfinished ones are live: one
   * count over the unfinished ordered messages, for the metrics gauge.
   */
  countHeld(): Promise<HeldCounts>;

  /**
   * The head of a key: the message of `queue` and `key` with the smallest `orderSeq` that is not
   * finished (the one no older message holds), or undefined. Served by the key-order index.
   */
  headOfKey(queue: string, key: string): Promise<ReliableMessage | undefined>;

  /**
   * Keyset scan for bulk operations: messages matching `filter` with `messageId` greater than
   * `afterMessageId` (all when null), ascending by `messageId` (code-point order), at most
   * `limit`. A bulk operation that changes what it scans does not skip or repeat a message.
   */
  scan(filter: ReliableMessageFilter, afterMessageId: string | null, limit: number): Promise<readonly ReliableMessage[]>;

  /**
   * The seed's paged listing: messages matching `filter`, ordered by `createdAt` then
   * `messageId`, page `pageNum` (1-based) of `pageSize`, with the total count.
   */
  listPage(filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage>;

  /**
   * The retention purge: deletes ACKNOWLEDGED and CANCELLED messages with `updatedAt` before
   * `before`, oldest `updatedAt` first, at most `limit` (a positive integer, else `RangeError`);
   * returns how many it deleted. Served by an index on the finished rows, whatever the number of
   * live ones. Never touches a live message (waiting, review, sending, dead).
   */
  purgeFinished(before: number, limit: number): Promise<number>;

  /** How many messages are in each phase, for the metrics gauge (one grouped count). */
  countByPhase(): Promise<ReliableMessagePhaseCounts>;

  /**
   * The phase counts of every queue that holds a message (zeros included), ascending by queue in
   * code-point order: one grouped count, for the operators' queue list.
   */
  countByQueue(): Promise<readonly ReliableQueueCounts[]>;

  /**
   * The delivery phase counts of every (queue, subscription) holding a delivery (zeros included),
   * ascending by queue then subscription in code-point order: one grouped count, for the
   * per-subscription gauge (a message with a DEAD delivery is SENDING in `countByPhase`).
   */
  countDeliveries(): Promise<readonly SubscriptionDeliveryCounts[]>;
}
