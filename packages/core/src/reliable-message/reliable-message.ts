/**
 * The record of the reliable-message service (SPEC §4, seed 002 `rp_transaction_message`).
 *
 * A producer saves a message before its business transaction, confirms it after the commit, and
 * the service delivers it to the message's consumer queue until the consumer acknowledges it
 * (which deletes the record). The lifecycle is in `message-machine.ts`.
 */

/** The stored status (seed `status`). Whether a SENDING message is dead is the `dead` flag. */
export const ReliableMessageStatus = {
  WAITING_CONFIRM: "WAITING_CONFIRM",
  SENDING: "SENDING",
} as const;
export type ReliableMessageStatus = (typeof ReliableMessageStatus)[keyof typeof ReliableMessageStatus];

/**
 * The lifecycle phase: the status plus the dead flag, and `ABSENT` for "no record" (never saved,
 * cancelled, or acknowledged by its consumer). The machine is written over phases.
 */
export const ReliableMessagePhase = {
  ABSENT: "ABSENT",
  WAITING_CONFIRM: "WAITING_CONFIRM",
  SENDING: "SENDING",
  DEAD: "DEAD",
} as const;
export type ReliableMessagePhase = (typeof ReliableMessagePhase)[keyof typeof ReliableMessagePhase];

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
  /** Seed `areadly_dead`: resends used up, or marked by an operator. Jobs leave a dead message alone. */
  readonly dead: boolean;
  /** Check-backs that were inconclusive (the producer said "later", failed, or had no checker). */
  readonly checkCount: number;
  /**
   * When a job should look at the message next: WAITING_CONFIRM → the check-back job; SENDING →
   * the recovery job (the last send's acknowledgement wait is over). Null when dead.
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
}

/** The phase of a stored message (or of its absence). */
export function reliableMessagePhase(message: ReliableMessage | undefined): ReliableMessagePhase {
  if (message === undefined) return ReliableMessagePhase.ABSENT;
  if (message.status === ReliableMessageStatus.WAITING_CONFIRM) return ReliableMessagePhase.WAITING_CONFIRM;
  return message.dead ? ReliableMessagePhase.DEAD : ReliableMessagePhase.SENDING;
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
    message.field3 === (draft.field3 ?? null)
  );
}
