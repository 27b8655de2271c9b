import { deadLetterDraft, sendDraft } from "./message-envelope.js";
import { historyEntry, LIBRARY_CAUSE } from "./message-history.js";
import { evolveReliableMessage, impliesDeadLetter, impliesSend } from "./message-machine.js";
import { isReliableMessageError, ReliableMessageError } from "./reliable-message-error.js";
import { subscriptionsOf } from "./reliable-message-options.js";
import type { ReliableMessageWrite } from "./reliable-message-store.js";
import { ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";
import { runReliableMessageCommand, type ReliableMessageBatchResult, type ReliableMessageCommandDeps, type ReliableMessageOutcome } from "./run-command.js";
import { checkSubscriptionArgument, deliveryView, subscriptionNamesFor, type SubscriptionDelivery } from "./subscription-delivery.js";
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
    const deliveries = round === 1 && current !== undefined ? current.deliveries : message === undefined ? [] : await deps.store.deliveries(messageId);
    const step = planSubscriptionCommand(deps, messageId, message, deliveries, subscription, command);
    if (step.kind === "done") return step.outcome;
    const result = await deps.store.commit(step.write);
    if (result.ok) return step.outcome(result.eventId);
  }
  throw new ReliableMessageError("CONFLICT", `message ${messageId}: still changing after ${attempts} compare-and-set rounds`, messageId);
}

/**
 * Runs `command` for the deliveries of `messageIds` to `subscription` in one store transaction
 * (`commitMany`): each message and its deliveries read, each decided as `runSubscriptionCommand`
 * decides it, every change written together. Each id answers on its own: the refusal it would get
 * alone (`NOT_FOUND`, `ILLEGAL_STATE`, `INVALID_MESSAGE` for a subscription it does not have), its
 * no-op, or its outcome; an id whose compare-and-set was lost (another writer changed it
 * meanwhile) is run again on its own, so it never fails the others.
 */
export async function runSubscriptionCommandBatch(
  deps: ReliableMessageCommandDeps,
  messageIds: readonly string[],
  subscription: string,
  command: SubscriptionCommand,
): Promise<readonly ReliableMessageBatchResult[]> {
  const ids = [...new Set(messageIds)];
  if (ids.length === 0) return [];
  const stored = new Map((await deps.store.scan({ messageIds: ids }, null, ids.length)).map((m) => [m.messageId, m]));
  const results = new Map<string, ReliableMessageBatchResult>();
  const planned: { readonly id: string; readonly write: ReliableMessageWrite; outcome(eventId: number | null): ReliableMessageOutcome }[] = [];
  // In id order, so two batches touching the same rows lock them in the same order.
  for (const id of [...ids].sort()) {
    try {
      const message = stored.get(id);
      const deliveries = message === undefined ? [] : await deps.store.deliveries(id);
      if (message !== undefined) checkSubscriptionArgument(id, message.consumerQueue, subscriptionNamesFor(message, deliveries, subscriptionsOf(deps.options, message.consumerQueue)), subscription);
      // Unknown, or not fanned out yet: the message's own answer, as for one id alone (a refusal, no write).
      if (deliveries.length === 0) {
        results.set(id, { messageId: id, outcome: await runReliableMessageCommand(deps, id, command, message ?? null) });
        continue;
      }
      const step = planSubscriptionCommand(deps, id, message, deliveries, subscription, command);
      if (step.kind === "done") results.set(id, { messageId: id, outcome: step.outcome });
      else planned.push({ id, write: step.write, outcome: step.outcome });
    } catch (e) {
      if (!isReliableMessageError(e)) throw e;
      results.set(id, { messageId: id, error: e });
    }
  }
  const written = await deps.store.commitMany(planned.map((p) => p.write));
  for (const [i, p] of planned.entries()) {
    const result = written[i]!;
    if (result.ok) {
      results.set(p.id, { messageId: p.id, outcome: p.outcome(result.eventId) });
      continue;
    }
    try {
      results.set(p.id, { messageId: p.id, outcome: await runSubscriptionCommand(deps, p.id, subscription, command) });
    } catch (e) {
      if (!isReliableMessageError(e)) throw e;
      results.set(p.id, { messageId: p.id, error: e });
    }
  }
  return ids.map((id) => results.get(id)!);
}

/** What a subscription command does to one message: nothing more to write (its outcome), or a write and the outcome once written. */
type SubscriptionStep =
  | { readonly kind: "done"; readonly outcome: ReliableMessageOutcome }
  | { readonly kind: "write"; readonly write: ReliableMessageWrite; outcome(eventId: number | null): ReliableMessageOutcome };

/**
 * Decides `command` for the delivery of `message` to `subscription` and plans its write: the
 * delivery's change (with its send or dead letter), the message's (ACKNOWLEDGED with the last
 * acknowledgement, else its version raised) and the history entry naming the subscription.
 * Throws the refusal (`NOT_FOUND`, `ILLEGAL_STATE`, the machine's own).
 */
function planSubscriptionCommand(
  deps: ReliableMessageCommandDeps,
  messageId: string,
  message: ReliableMessage | undefined,
  deliveries: readonly SubscriptionDelivery[],
  subscription: string,
  command: SubscriptionCommand,
): SubscriptionStep {
  if (message === undefined) throw new ReliableMessageError("NOT_FOUND", `message ${messageId}: no such message`, messageId);
  const delivery = deliveries.find((d) => d.subscription === subscription);
  if (delivery === undefined) throw new ReliableMessageError("ILLEGAL_STATE", `message ${messageId}: not delivered to subscription ${subscription}`, messageId);
  const ctx = { now: deps.clock.now(), options: deps.options };
  const decision = decideSubscriptionDelivery(command, message, delivery, ctx);
  if (decision.kind === "reject") throw new ReliableMessageError(decision.code, `message ${messageId}, subscription ${subscription}: ${decision.reason}`, messageId);
  if (decision.kind === "noop") return { kind: "done", outcome: { messageId, applied: false, event: null, reason: decision.reason, message, eventId: null, delivery } };
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
  return {
    kind: "write",
    write: { op: "update", expectedVersion: message.version, message: nextMessage, send: null, history, deliveries: [{ delivery: next, send, deadLetter }] },
    outcome: (eventId) => {
      const written = send !== null ? { ...next, lastEventId: eventId } : next;
      return { messageId, applied: true, event: event.type, reason: null, message: nextMessage, eventId: send !== null ? eventId : null, delivery: written };
    },
  };
}
