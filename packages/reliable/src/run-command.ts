import type { Clock } from "@msgx/core";
import { deadLetterDraft, sendDraft } from "./message-envelope.js";
import { isKeyOrdered } from "./key-order.js";
import { decideReliableMessage, evolveReliableMessage, impliesDeadLetter, impliesSend, type ReliableMessageCommand, type ReliableMessageContext, type ReliableMessageEvent } from "./message-machine.js";
import { historyEntry, LIBRARY_CAUSE, type ReliableMessageCause } from "./message-history.js";
import { ReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageOptions } from "./reliable-message-options.js";
import type { ReliableMessageWrite, ReliableMessageStore } from "./reliable-message-store.js";
import type { ReliableMessage } from "./reliable-message.js";
import { subscriptionsOf } from "./reliable-message-options.js";
import { deliveryView, firstDelivery, type SubscriptionDelivery } from "./subscription-delivery.js";

/** The events that send a message for the first time: where a queue with subscriptions fans out. */
const isFirstSend = (event: ReliableMessageEvent): boolean => event.type === "confirmed" || event.type === "saved-and-sent" || event.type === "delivered";

/** What a command did to one message. */
export interface ReliableMessageOutcome {
  readonly messageId: string;
  /** True when the command changed the store; false for a no-op (a retry, a message already there). */
  readonly applied: boolean;
  /** The event applied, when one was. */
  readonly event: ReliableMessageEvent["type"] | null;
  /** Why nothing was done, for a no-op. */
  readonly reason: string | null;
  /** The message after the command (undefined when it is gone or was never there). */
  readonly message: ReliableMessage | undefined;
  /** The EVENT_ID of the outbox row the command wrote, when it sent (the dead-letter row is not a send). */
  readonly eventId: number | null;
  /** For a command to one subscription: its delivery after the command. */
  readonly delivery?: SubscriptionDelivery | undefined;
}

export interface ReliableMessageCommandDeps {
  readonly store: ReliableMessageStore;
  readonly clock: Clock;
  readonly options: ReliableMessageOptions;
  /** Compare-and-set rounds before giving up with `CONFLICT` (default 5). */
  readonly casAttempts?: number;
  /** Why the change is asked for, written to the message's history (default `library`). */
  readonly cause?: ReliableMessageCause;
}

/** One message's answer in a batch: its outcome, or the refusal it alone would have had. */
export type ReliableMessageBatchResult =
  | { readonly messageId: string; readonly outcome: ReliableMessageOutcome }
  | { readonly messageId: string; readonly error: ReliableMessageError };

/**
 * The same command for many messages, as few store round trips as it takes: one read of them all
 * (`scan` by ids), the decisions, and the changes in one `commitMany` transaction. A message whose
 * compare-and-set was lost there (someone changed it meanwhile) runs alone through
 * {@link runReliableMessageCommand}. One result per distinct id, in the order given; a refusal is
 * that id's result. Store errors propagate for the whole batch (every command is idempotent: the
 * caller sends it again).
 */
export async function runReliableMessageCommandBatch(
  deps: ReliableMessageCommandDeps,
  messageIds: readonly string[],
  command: ReliableMessageCommand,
): Promise<readonly ReliableMessageBatchResult[]> {
  const ids = [...new Set(messageIds)];
  if (ids.length === 0) return [];
  const stored = new Map((await deps.store.scan({ messageIds: ids }, null, ids.length)).map((m) => [m.messageId, m]));
  const ctx = { now: deps.clock.now(), options: deps.options };
  const results = new Map<string, ReliableMessageBatchResult>();
  const planned: { readonly id: string; readonly plan: Planned }[] = [];
  // In id order, so two batches touching the same rows lock them in the same order.
  for (const id of [...ids].sort()) {
    const state = stored.get(id);
    const decision = decideReliableMessage(command, state, ctx);
    if (decision.kind === "reject") results.set(id, { messageId: id, error: new ReliableMessageError(decision.code, `message ${id}: ${decision.reason}`, id) });
    else if (decision.kind === "noop") results.set(id, { messageId: id, outcome: { messageId: id, applied: false, event: null, reason: decision.reason, message: state, eventId: null } });
    else planned.push({ id, plan: plan(id, state, decision.event, ctx, deps.cause ?? LIBRARY_CAUSE) });
  }
  const written = await deps.store.commitMany(planned.map((p) => p.plan.write));
  for (const [i, { id, plan: p }] of planned.entries()) {
    const result = written[i]!;
    if (result.ok) results.set(id, { messageId: id, outcome: p.outcome(result) });
    else {
      try {
        results.set(id, { messageId: id, outcome: await runReliableMessageCommand(deps, id, command) });
      } catch (e) {
        if (!(e instanceof ReliableMessageError)) throw e;
        results.set(id, { messageId: id, error: e });
      }
    }
  }
  return ids.map((id) => results.get(id)!);
}

/** A decided change: the write that makes it, and its outcome once written. */
interface Planned {
  readonly write: ReliableMessageWrite;
  outcome(written: { readonly eventId: number | null; readonly orderSeq?: number | undefined }): ReliableMessageOutcome;
}

/**
 * The write of `event` applied to `state` (its outbox row when it sends, its dead letter when it
 * dies). The first send of a message of a queue with subscriptions is a first delivery per
 * subscription instead, each with its send to the subscription's topic; the message itself then
 * waits for them (no `nextCheckAt` of its own). With its history entry: the one place every
 * applied change gets its entry.
 */
function plan(messageId: string, state: ReliableMessage | undefined, event: ReliableMessageEvent, ctx: ReliableMessageContext, cause: ReliableMessageCause): Planned {
  const evolved = evolveReliableMessage(state, event, ctx);
  const fanOut = evolved !== undefined && isFirstSend(event) ? subscriptionsOf(ctx.options, evolved.consumerQueue) : [];
  const deliveries = fanOut.map((sub) => {
    const delivery = firstDelivery(evolved!, sub);
    return { delivery, send: sendDraft(deliveryView(evolved!, delivery), sub) };
  });
  const next = fanOut.length > 0 ? { ...evolved!, nextCheckAt: null } : evolved;
  const send = next !== undefined && impliesSend(event) && fanOut.length === 0 ? sendDraft(next) : null;
  const deadLetter = next !== undefined && impliesDeadLetter(event) ? deadLetterDraft(next) : null;
  const sequence = next !== undefined && (event.type === "scheduled" || event.type === "saved-and-scheduled") && isKeyOrdered(ctx.options, next.consumerQueue, next.key);
  const history = next !== undefined ? historyEntry(state, next, event, cause, ctx.now) : null;
  const write: ReliableMessageWrite =
    state === undefined
      ? { op: "insert", message: next!, send, history, deliveries, ...(sequence ? { sequence } : {}) }
      : next === undefined
        ? { op: "delete", messageId, expectedVersion: state.version }
        : { op: "update", expectedVersion: state.version, message: next, send, deadLetter, history, deliveries, ...(sequence ? { sequence } : {}) };
  return {
    write,
    // The store recorded the send's EVENT_ID on the message in the same transaction.
    outcome: ({ eventId, orderSeq }) => ({
      messageId,
      applied: true,
      event: event.type,
      reason: null,
      message: next === undefined ? next : { ...next, ...(send !== null ? { lastEventId: eventId } : {}), ...(orderSeq !== undefined ? { orderSeq } : {}) },
      // A fan-out's first delivery row stands for its sends.
      eventId: send !== null || deliveries.length > 0 ? eventId : null,
    }),
  };
}

/**
 * Reads the message, decides, evolves, and writes the change (with its outbox row when it sends,
 * or its dead-letter row when it dies) as one compare-and-set. A lost compare-and-set means someone else changed the message: read
 * again and decide again, so a concurrent confirm, check-back or acknowledgement is seen and never
 * doubled. Store errors propagate unchanged (`COMMIT_UNKNOWN` included: the caller re-reads or
 * retries the command, which is safe since every command is idempotent).
 *
 * `current` is the state the caller already read, saving the first read (jobs pass what `due`
 * returned).
 */
export async function runReliableMessageCommand(
  deps: ReliableMessageCommandDeps,
  messageId: string,
  command: ReliableMessageCommand,
  current?: ReliableMessage | null,
): Promise<ReliableMessageOutcome> {
  const attempts = deps.casAttempts ?? 5;
  let state: ReliableMessage | undefined = current === null ? undefined : current;
  let known = current !== undefined;
  for (let round = 1; round <= attempts; round++) {
    if (!known) state = await deps.store.get(messageId);
    known = false;
    const ctx = { now: deps.clock.now(), options: deps.options };
    const decision = decideReliableMessage(command, state, ctx);
    if (decision.kind === "reject") throw new ReliableMessageError(decision.code, `message ${messageId}: ${decision.reason}`, messageId);
    if (decision.kind === "noop") {
      return { messageId, applied: false, event: null, reason: decision.reason, message: state, eventId: null };
    }
    const planned = plan(messageId, state, decision.event, ctx, deps.cause ?? LIBRARY_CAUSE);
    const result = await deps.store.commit(planned.write);
    if (result.ok) return planned.outcome(result);
  }
  throw new ReliableMessageError("CONFLICT", `message ${messageId}: still changing after ${attempts} compare-and-set rounds`, messageId);
}
