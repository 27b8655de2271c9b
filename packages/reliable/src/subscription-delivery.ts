import { ReliableMessageError } from "./reliable-message-error.js";
import { ReliableMessagePhase, ReliableMessageStatus, reliableMessagePhase, type ReliableMessage } from "./reliable-message.js";

/**
 * A subscription name (a consumer group of a queue): `[A-Za-z0-9_-]`, 1–50 characters. No dot, so
 * the topic `<prefix><queue>.<subscription>` names one queue and one subscription whatever dots
 * the queue name holds (the part after the last dot is the subscription).
 */
export const SUBSCRIPTION_NAME = /^[A-Za-z0-9_-]{1,50}$/;

/** The most subscriptions one queue may have. */
export const MAX_SUBSCRIPTIONS = 20;

/**
 * The delivery of one message to one subscription of its queue (issue 36 item 1): the
 * per-subscription copy of the fields the message keeps for its single consumer. Created for every
 * subscription of the queue in the transaction of the message's first send; from then on the
 * subscription's sends, rejects, resends and dead letter are its own, and the message is
 * ACKNOWLEDGED in the transaction of the last subscription's acknowledgement.
 *
 * `status` is SENDING or ACKNOWLEDGED; `dead` is the subscription's DEAD; the other fields mean
 * what the message's fields of the same name mean, counted for this subscription only.
 */
export interface SubscriptionDelivery {
  readonly messageId: string;
  readonly subscription: string;
  readonly status: typeof ReliableMessageStatus.SENDING | typeof ReliableMessageStatus.ACKNOWLEDGED;
  readonly sendCount: number;
  readonly dead: boolean;
  /** When the recovery job looks at this delivery next (ack wait, reject's redelivery, outage recheck); null when dead or acknowledged. */
  readonly nextCheckAt: number | null;
  readonly lastSentAt: number | null;
  /** The EVENT_ID of the outbox row of this subscription's last send, set by the store. */
  readonly lastEventId: number | null;
  readonly rejectCount: number;
  readonly rejectedAt: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The phase of a delivery: SENDING, DEAD or ACKNOWLEDGED. */
export const subscriptionPhase = (d: SubscriptionDelivery): ReliableMessagePhase =>
  d.status === ReliableMessageStatus.ACKNOWLEDGED ? ReliableMessagePhase.ACKNOWLEDGED : d.dead ? ReliableMessagePhase.DEAD : ReliableMessagePhase.SENDING;

/** The message as its subscription sees it: the message's content with the delivery's state (the machine runs on this view). */
export function deliveryView(message: ReliableMessage, d: SubscriptionDelivery): ReliableMessage {
  return {
    ...message,
    status: d.status,
    sendCount: d.sendCount,
    dead: d.dead,
    nextCheckAt: d.nextCheckAt,
    lastSentAt: d.lastSentAt,
    lastEventId: d.lastEventId,
    rejectCount: d.rejectCount,
    rejectedAt: d.rejectedAt,
    lastError: d.lastError,
    updatedAt: d.updatedAt,
  };
}

/** The delivery state of a view after the machine changed it. */
export function deliveryOf(view: ReliableMessage, d: SubscriptionDelivery): SubscriptionDelivery {
  return {
    ...d,
    status: view.status === ReliableMessageStatus.ACKNOWLEDGED ? ReliableMessageStatus.ACKNOWLEDGED : ReliableMessageStatus.SENDING,
    sendCount: view.sendCount,
    dead: view.dead,
    nextCheckAt: view.nextCheckAt,
    lastSentAt: view.lastSentAt,
    lastEventId: view.lastEventId,
    rejectCount: view.rejectCount,
    rejectedAt: view.rejectedAt,
    lastError: view.lastError,
    updatedAt: view.updatedAt,
  };
}

/** The first delivery of `message` (just sent, its send state copied) to `subscription`. */
export function firstDelivery(message: ReliableMessage, subscription: string): SubscriptionDelivery {
  return deliveryOf(message, {
    messageId: message.messageId,
    subscription,
    status: ReliableMessageStatus.SENDING,
    sendCount: 0,
    dead: false,
    nextCheckAt: null,
    lastSentAt: null,
    lastEventId: null,
    rejectCount: 0,
    rejectedAt: null,
    lastError: null,
    createdAt: message.updatedAt,
    updatedAt: message.updatedAt,
  });
}

/**
 * The subscriptions a consumer's call must name for `message`: those of its deliveries once it was
 * fanned out, else (not sent yet) those configured for its queue; none for a queue without
 * subscriptions or a message sent before its queue had any (it keeps its single acknowledgement).
 */
export function subscriptionNamesFor(message: ReliableMessage | undefined, deliveries: readonly SubscriptionDelivery[], configured: readonly string[]): readonly string[] {
  if (deliveries.length > 0) return deliveries.map((d) => d.subscription);
  const phase = reliableMessagePhase(message);
  const unsent = message === undefined || phase === ReliableMessagePhase.WAITING_CONFIRM || phase === ReliableMessagePhase.REVIEW || message.sendCount === 0;
  return unsent ? configured : [];
}

/**
 * Checks the subscription a consumer or operator named against those of the message: required when
 * it has some, refused when it has none or names another (`INVALID_MESSAGE`, HTTP 400, naming it).
 */
export function checkSubscriptionArgument(messageId: string, queue: string, names: readonly string[], subscription: string | undefined): void {
  if (subscription === undefined) {
    if (names.length > 0) throw new ReliableMessageError("INVALID_MESSAGE", `message ${messageId}: queue ${queue} has subscriptions (${names.join(", ")}): name one as subscription`, messageId);
    return;
  }
  if (!names.includes(subscription)) {
    const known = names.length === 0 ? `queue ${queue} has no subscriptions` : `queue ${queue} has ${names.join(", ")}`;
    throw new ReliableMessageError("INVALID_MESSAGE", `message ${messageId}: unknown subscription ${JSON.stringify(subscription)} (${known})`, messageId);
  }
}
