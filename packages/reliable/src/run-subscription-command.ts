import { deadLetterDraft, sendDraft } from "./message-envelope.js";
import { historyEntry, LIBRARY_CAUSE } from "./message-history.js";
import { evolveReliableMessage, impliesDeadLetter, impliesSend } from "./message-machine.js";
import { ReliableMessageError } from "./reliable-message-error.js";
import { ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";
import type { ReliableMessageCommandDeps, ReliableMessageOutcome } from "./run-command.js";
import { deliveryView, type SubscriptionDelivery } from "./subscription-delivery.js";
import { decideSubscriptionDelivery, evolveSubscriptionDelivery, type SubscriptionCommand } from "./subscription-machine.js";

/**
 * Runs `command` for the delivery of message `messageId` to `subscription`: read the message and
 * its deliveries, decide, evolve, and write the delivery (with its send to the subscription's
 * topic, or its dead letter) and the message in one compare-and-set on the message's `version`.
 * The acknowledgement that leaves no delivery unacknowledged also moves the message to
 * ACKNOWLEDGED in that transaction; any other change only raises the message's version (each
 * change is one entry of the message's history, naming the subscription), so two
 * subscriptions acknowledging at once conflict, and the one that re-reads sees it is the last.
 * A lost compare-and-set reads again and decides again, as for a message.
 */
export async function runSubscriptionCommand(
  deps: ReliableMessageCommandDeps,
  messageId: string,
  subscription: string,
  command: SubscriptionCommand,
  current?: { readonly message: ReliableMessage; readonly deliveries: readonly SubscriptionDelivery[] },
): Promise<ReliableMessageOutcome> {
  const attempts = deps.casAttempts ?? 5;
  for (let round = 1; round <= attempts; round++) {
    const message = round === 1 && current !== undefined ? current.message : await deps.store.get(messageId);
    if (message === undefined) throw new ReliableMessageError("NOT_FOUND", `message ${messageId}: no such message`, messageId);
    const deliveries = round === 1 && current !== undefined ? current.deliveries : await deps.store.deliveries(messageId);
    const delivery = deliveries.find((d) => d.subscription === subscription);
    if (delivery === undefined) throw new ReliableMessageError("ILLEGAL_STATE", `message ${messageId}: not delivered to subscription ${subscription}`, messageId);
    const ctx = { now: deps.clock.now(), options: deps.options };
    const decision = decideSubscriptionDelivery(command, message, delivery, ctx);
    if (decision.kind === "reject") throw new ReliableMessageError(decision.code, `message ${messageId}, subscription ${subscription}: ${decision.reason}`, messageId);
    if (decision.kind === "noop") return { messageId, applied: false, event: null, reason: decision.reason, message, eventId: null, delivery };
    const event = decision.event;
    const next = evolveSubscriptionDelivery(message, delivery, event, ctx);
    const view = deliveryView(message, next);
    const send = impliesSend(event) ? sendDraft(view, subscription) : null;
    const deadLetter = impliesDeadLetter(event) ? deadLetterDraft(view, subscription) : null;
    const allAcked = deliveries.every((d) => (d.subscription === subscription ? next : d).status === ReliableMessageStatus.ACKNOWLEDGED);
    const nextMessage =
      allAcked && message.status === ReliableMessageStatus.SENDING
        ? evolveReliableMessage(message, { type: "acknowledged" }, ctx)!
        : { ...message, version: message.version + 1, updatedAt: ctx.now };
    // The message's history gets the entry of its new version: the delivery's event, named by the subscription.
    const cause = deps.cause ?? LIBRARY_CAUSE;
    const detail = historyEntry(deliveryView(message, delivery), view, event, cause, ctx.now).detail;
    const history = { ...historyEntry(message, nextMessage, event, cause, ctx.now), detail: `subscription ${subscription}${detail === null ? "" : `: ${detail}`}` };
    const result = await deps.store.commit({
      op: "update",
      expectedVersion: message.version,
      message: nextMessage,
      send: null,
      history,
      deliveries: [{ delivery: next, send, deadLetter }],
    });
    if (result.ok) {
      const written = send !== null ? { ...next, lastEventId: result.eventId } : next;
      return { messageId, applied: true, event: event.type, reason: null, message: nextMessage, eventId: send !== null ? result.eventId : null, delivery: written };
    }
  }
  throw new ReliableMessageError("CONFLICT", `message ${messageId}: still changing after ${attempts} compare-and-set rounds`, messageId);
}
