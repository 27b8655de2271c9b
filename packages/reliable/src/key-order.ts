/**
 * Per-key order (issue 36 item 3; pg-boss `key_strict_fifo`, RocketMQ's ordered messages), for the
 * queues listed in `orderedQueues`. The rule, in one place:
 *
 * **A message is held while an older message of its key is not finished.**
 *
 * - *Its key*: the same consumer queue and business `key`, among messages that have an `orderSeq`
 *   (confirmed on an ordered queue). Messages without a key, or of other queues, never hold nor
 *   wait; other keys are never held.
 * - *Older*: a smaller `orderSeq`, the confirm sequence the store assigns in the confirming
 *   transaction (total per key, in commit order: never a timestamp tie).
 * - *Finished*: ACKNOWLEDGED or CANCELLED, or gone (deleted by an operator, purged). A DEAD message
 *   is **not** finished: it holds its key until an operator resends it (and the consumer
 *   acknowledges), acknowledges or deletes it. A delayed message holds the later ones of its key
 *   until it is delivered and acknowledged. A WAITING_CONFIRM message has no `orderSeq` yet, so it
 *   holds nothing: the order is the confirm order, not the prepare order.
 *
 * On an ordered queue a confirm never sends by itself: it schedules the first send (at once, or
 * at the delivery time) and the send is written only when the message is not held. So at most one
 * message of a key is in flight, and the first sends of a key go out in confirm order. The
 * PostgreSQL store states the same rule as one SQL predicate (`heldByKeySql`).
 */
import { ReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageOptions } from "./reliable-message-options.js";
import { isFinishedStatus, type ReliableMessage, type ReliableMessageDraft } from "./reliable-message.js";

/** True when `queue` delivers in key order. */
export const isOrderedQueue = (options: ReliableMessageOptions, queue: string): boolean => (options.orderedQueues ?? []).includes(queue);

/** True when a message of `queue` with `key` is delivered in key order (an ordered queue and a key). */
export const isKeyOrdered = (options: ReliableMessageOptions, queue: string, key: string | null): boolean => key !== null && isOrderedQueue(options, queue);

/** True when `m` no longer holds its key: finished (a message that is gone holds nothing either). */
export const releasesKey = (m: Pick<ReliableMessage, "status">): boolean => isFinishedStatus(m.status);

/** True when `other` is of `message`'s key and confirmed before it. */
const olderOfKey = (message: ReliableMessage, other: ReliableMessage): boolean =>
  message.orderSeq !== null &&
  other.orderSeq !== null &&
  other.consumerQueue === message.consumerQueue &&
  other.key === message.key &&
  other.orderSeq < message.orderSeq;

/**
 * The message `message` waits for: the oldest message of its key confirmed before it that is not
 * finished, among `others` (any messages; the others are ignored); undefined when it is not held.
 */
export function heldBehind(message: ReliableMessage, others: Iterable<ReliableMessage>): ReliableMessage | undefined {
  let oldest: ReliableMessage | undefined;
  for (const o of others) {
    if (olderOfKey(message, o) && !releasesKey(o) && (oldest === undefined || o.orderSeq! < oldest.orderSeq!)) oldest = o;
  }
  return oldest;
}

/** The head of `queue`'s `key` among `messages`: its unfinished message with the smallest `orderSeq` (held by nothing). */
export function headOfKey(queue: string, key: string, messages: Iterable<ReliableMessage>): ReliableMessage | undefined {
  let head: ReliableMessage | undefined;
  for (const m of messages) {
    if (m.consumerQueue === queue && m.key === key && m.orderSeq !== null && !releasesKey(m) && (head === undefined || m.orderSeq < head.orderSeq!)) head = m;
  }
  return head;
}

/** True when an older unfinished message of `message`'s key among `others` is DEAD (it holds the key until an operator settles it). */
export const heldBehindDead = (message: ReliableMessage, others: Iterable<ReliableMessage>): boolean =>
  [...others].some((o) => olderOfKey(message, o) && !releasesKey(o) && o.dead);

/** Refuses (`INVALID_MESSAGE`) a stored message of an ordered queue without a key. */
export function checkKeyForQueue(options: ReliableMessageOptions, draft: Required<ReliableMessageDraft>): void {
  if (draft.key === null && isOrderedQueue(options, draft.consumerQueue)) {
    throw new ReliableMessageError("INVALID_MESSAGE", `invalid message: key is required on queue ${draft.consumerQueue} (ordered by key)`, draft.messageId);
  }
}
