/**
 * The lifecycle of one message's delivery to one subscription (issue 36 item 1), as pure
 * functions over {@link SubscriptionDelivery}. A delivery has the SENDING part of the message's
 * lifecycle and nothing else, so its rules are the message machine's (`message-machine.ts`) run on
 * the message as the subscription sees it ({@link deliveryView}): one place per rule.
 *
 * Phases: `SENDING` (sent to the subscription's topic, waiting for its acknowledgement: the
 * recovery job resends it on the queue's `resendWaitsMs` from the broker's acknowledgement of the
 * subscription's last send, a reject redelivers it after `rejectWaitsMs`), `DEAD` (SENDING with
 * the dead flag: `maxSends` or `maxRejects` used, the broker refused its send, or an operator's
 * mark-dead; its dead letter written; left by an operator's resend, the replay, or a late
 * acknowledgement) and `ACKNOWLEDGED` (terminal). The commands are the message's
 * `recover`, `reject`, `resend`, `mark-dead` and `acknowledge`; their events are the message's.
 */
import { decideReliableMessage, evolveReliableMessage, type ReliableMessageCommand, type ReliableMessageContext, type ReliableMessageDecision, type ReliableMessageEvent } from "./message-machine.js";
import type { ReliableMessage } from "./reliable-message.js";
import { deliveryOf, deliveryView, type SubscriptionDelivery } from "./subscription-delivery.js";

/** The commands a subscription's delivery takes. */
export type SubscriptionCommand = Extract<ReliableMessageCommand, { readonly type: "recover" | "reject" | "resend" | "mark-dead" | "acknowledge" }>;

/** Decides `command` for `delivery` of `message` (pure). */
export const decideSubscriptionDelivery = (command: SubscriptionCommand, message: ReliableMessage, delivery: SubscriptionDelivery, ctx: ReliableMessageContext): ReliableMessageDecision =>
  decideReliableMessage(command, deliveryView(message, delivery), ctx);

/** Applies `event` to `delivery` (the one choke point; throws `IllegalTransitionError` for an event not legal in its phase). */
export function evolveSubscriptionDelivery(message: ReliableMessage, delivery: SubscriptionDelivery, event: ReliableMessageEvent, ctx: ReliableMessageContext): SubscriptionDelivery {
  const next = evolveReliableMessage(deliveryView(message, delivery), event, ctx);
  if (next === undefined) throw new Error(`a subscription delivery cannot be deleted by ${event.type}`);
  return deliveryOf(next, delivery);
}
