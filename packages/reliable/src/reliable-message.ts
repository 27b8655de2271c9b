import { states, type ValueOf } from "@msgx/core";

/**
 * The record of the reliable-message service (SPEC §4, seed 002 `rp_transaction_message`).
 *
 * A producer saves a message before its business transaction, confirms it after the commit, and
 * the service delivers it to the message's consumer queue until the consumer acknowledges it.
 * Acknowledged and cancelled messages are kept (terminal statuses) until the retention purge, so a
 * message id stays taken for the retention window. The lifecycle is in `message-machine.ts`.
 */

/**
 * The stored status (seed `status`, plus the two terminal ones). Whether a SENDING message is dead
 * (or a WAITING_CONFIRM one held for review) is the `dead` flag.
 * - `ACKNOWLEDGED`: terminal: the consumer acknowledged it. Purged after the retention time.
 * - `CANCELLED`: terminal: the producer or the check-back cancelled it unsent. Purged after the
 *   retention time.
 */
export const ReliableMessageStatus = states("WAITING_CONFIRM", "SENDING", "ACKNOWLEDGED", "CANCELLED");
export type ReliableMessageStatus = ValueOf<typeof ReliableMessageStatus>;

/**
 * The lifecycle phase: the status plus the dead flag, and `ABSENT` for "no record" (never saved,
 * deleted by an operator, or purged after retention). The machine is written over phases.
 * - `REVIEW`: WAITING_CONFIRM with the dead flag: check-back gave up (`afterMaxChecks: "dead"`);
 *   no job touches it.
 */
export const ReliableMessagePhase = states("ABSENT", "WAITING_CONFIRM", "REVIEW", "SENDING", "DEAD", "ACKNOWLEDGED", "CANCELLED");
export type ReliableMessagePhase = ValueOf<typeof ReliableMessagePhase>;

/** What a producer hands in: the message and where it goes. Optional fields default to null. */
export interface ReliableMessageDraft {
  /** Unique among stored messages; the consumer dedupes on it. 1–128 characters, no control characters. */
  readonly messageId: string;
  /** The message text delivered to the consumer (seed `message_body`), usually JSON. */
  readonly body: string;
  /**
   * The consumer queue (seed `consumer_queue`): `[A-Za-z0-9._-]`, 1–100 characters, since it
   * names the delivery target and the Kafka topic.
   */
  readonly consumerQueue: string;
  /** What the body holds, for the consumer (seed `message_data_type`), ≤ 50 characters. */
  readonly dataType?: string | null;
  /** Free text for operators, ≤ 200 characters. */
  readonly remark?: string | null;
  /** Extension fields for the producer's checker (the seed keeps the bank order number in field1), ≤ 200 characters each. */
  readonly field1?: string | null;
  readonly field2?: string | null;
  readonly field3?: string | null;
  /** Application headers delivered in the envelope: ≤ 20 entries, keys 1–100 and values ≤ 1,000 characters. */
  readonly headers?: Readonly<Record<string, string>> | null;
  /**
   * How long after the prepare the check-back may first ask the producer (RocketMQ's check
   * immunity), overriding the queue default and `checkAfterMs`. A non-negative integer of ms.
   */
  readonly checkDelayMs?: number | null;
  /**
   * The business key (an order number, an account): the Kafka record key of every send, so one
   * key stays on one partition. On a queue ordered by key (`orderedQueues`) it is required and
   * orders delivery (see `key-order.ts`). 1–128 characters, no control characters.
   */
  readonly key?: string | null;
}

/** A stored message. Times are epoch milliseconds from the service's `Clock`. */
export interface ReliableMessage {
  readonly messageId: string;
  /** Optimistic lock (seed `version`): 1 when saved, +1 on every change. Stores compare-and-set on it. */
  readonly version: number;
  readonly body: string;
  readonly dataType: string | null;
  readonly consumerQueue: string;
  readonly status: ReliableMessageStatus;
  /**
   * How many times the message was handed to the outbox (seed `message_send_times`): 0 while
   * WAITING_CONFIRM, 1 after the first send, +1 per resend. Also the `stateVersion` of its outbox row.
   */
  readonly sendCount: number;
  /**
   * Seed `areadly_dead`: on a SENDING message, resends or rejects used up, refused by the broker,
   * or marked by an operator (DEAD); on a WAITING_CONFIRM one, check-back gave up (REVIEW). Jobs
   * leave a dead message alone.
   */
  readonly dead: boolean;
  /** Check-backs that were inconclusive (the producer said "later", failed, or had no checker). */
  readonly checkCount: number;
  /**
   * When a job should look at the message next: WAITING_CONFIRM → the check-back job; SENDING →
   * the recovery job (the last send's acknowledgement wait, a reject's redelivery wait or an
   * outage recheck is over). Null when dead, acknowledged or cancelled.
   */
  readonly nextCheckAt: number | null;
  /** The last send (seed: `edit_time`, which any edit moved; here only a send does). */
  readonly lastSentAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When the producer (or the check-back job) confirmed it; null while WAITING_CONFIRM. */
  readonly confirmedAt: number | null;
  readonly remark: string | null;
  readonly field1: string | null;
  readonly field2: string | null;
  readonly field3: string | null;
  /** Application headers (see the draft), null when none were given. */
  readonly headers: Readonly<Record<string, string>> | null;
  /** The per-message check delay of the draft, null for the queue's default. */
  readonly checkDelayMs: number | null;
  /**
   * The delivery time asked for at the prepare (epoch ms; RocketMQ 5's timer messages), null for
   * "at the confirm". A confirm that gives no time of its own first sends the message then; a
   * confirm with a time overrides it. Kept as asked: the time a scheduled message goes out is its
   * `nextCheckAt`.
   */
  readonly deliverAt: number | null;
  /**
   * The EVENT_ID of the outbox row of the last send to the main topic, set by the store in the
   * transaction that writes it (null before the first send). The recovery job reads that row to
   * tell a send the broker acknowledged from one still waiting in the outbox.
   */
  readonly lastEventId: number | null;
  /** The business key of the draft, null when none was given. */
  readonly key: string | null;
  /**
   * The confirm sequence of a message of a queue ordered by key: assigned by the store in the
   * transaction that confirms it, ascending per key in commit order (null otherwise). Delivery
   * follows it: see `key-order.ts`.
   */
  readonly orderSeq: number | null;
  /** Rejections by the consumer (its handler failed past its own retries) since the last replay. */
  readonly rejectCount: number;
  /** When the consumer rejected the last send; its redelivery is pending until the next send clears it. */
  readonly rejectedAt: number | null;
  /** The last reject reason or dead reason, for operators. */
  readonly lastError: string | null;
}

/** The phase of a stored message (or of its absence). */
export function reliableMessagePhase(message: ReliableMessage | undefined): ReliableMessagePhase {
  if (message === undefined) return ReliableMessagePhase.ABSENT;
  switch (message.status) {
    case ReliableMessageStatus.WAITING_CONFIRM:
      return message.dead ? ReliableMessagePhase.REVIEW : ReliableMessagePhase.WAITING_CONFIRM;
    case ReliableMessageStatus.SENDING:
      return message.dead ? ReliableMessagePhase.DEAD : ReliableMessagePhase.SENDING;
    case ReliableMessageStatus.ACKNOWLEDGED:
      return ReliableMessagePhase.ACKNOWLEDGED;
    case ReliableMessageStatus.CANCELLED:
      return ReliableMessagePhase.CANCELLED;
  }
}

/** True for the terminal statuses the retention purge removes. */
export const isFinishedStatus = (status: ReliableMessageStatus): boolean =>
  status === ReliableMessageStatus.ACKNOWLEDGED || status === ReliableMessageStatus.CANCELLED;

/** Two header maps are equal when they hold the same entries (key order does not matter: jsonb sorts keys). */
export function sameHeaders(a: Readonly<Record<string, string>> | null, b: Readonly<Record<string, string>> | null | undefined): boolean {
  const x = a ?? null;
  const y = b ?? null;
  if (x === null || y === null) return x === y;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && y[k] === x[k]);
}

/** True when `message` holds exactly what `draft` asks for (a retried save is then a no-op). */
export function sameContent(message: ReliableMessage, draft: ReliableMessageDraft): boolean {
  return (
    message.messageId === draft.messageId &&
    message.body === draft.body &&
    message.consumerQueue === draft.consumerQueue &&
    message.dataType === (draft.dataType ?? null) &&
    message.remark === (draft.remark ?? null) &&
    message.field1 === (draft.field1 ?? null) &&
    message.field2 === (draft.field2 ?? null) &&
    message.field3 === (draft.field3 ?? null) &&
    message.checkDelayMs === (draft.checkDelayMs ?? null) &&
    message.key === (draft.key ?? null) &&
    sameHeaders(message.headers, draft.headers)
  );
}
