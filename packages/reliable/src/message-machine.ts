/**
 * The lifecycle of one reliable message (SPEC §4, seed 002), as pure functions: `decideReliableMessage`
 * turns a command into an event (or a no-op, or a refusal), `evolveReliableMessage` applies the event.
 * The events marked by {@link impliesSend} send (an outbox row to the queue's topic) and those
 * marked by {@link impliesDeadLetter} write the dead-letter row (to `rmq-dlq.<queue>`); the
 * service writes that row in the same store transaction as the new state: a status change and its
 * send never split.
 *
 * Phases (`reliableMessagePhase`):
 * - `ABSENT`: no record: never saved, deleted by an operator, or purged after retention. Left by
 *   `save-waiting` (to WAITING_CONFIRM) or `save-and-send` (to SENDING, sent).
 * - `WAITING_CONFIRM`: saved before the producer's business transaction; never sent. Left by
 *   `confirm` (producer, or the check-back job when the checker finds the business committed)
 *   to SENDING with the first send (or its schedule, when a delivery time is ahead), or by `cancel` (producer rollback, or the checker finds it
 *   will never commit) to CANCELLED. Once its check delay is over the check-back job asks the
 *   producer; an inconclusive answer (`defer-check`) keeps it here with `checkCount` + 1 and a
 *   doubling wait; with `afterMaxChecks: "dead"` the `maxChecks`-th one moves it to REVIEW.
 * - `REVIEW`: WAITING_CONFIRM with the dead flag: check-back gave up; no job touches it, it is
 *   never delivered nor dead-lettered (it was never confirmed). Left by `confirm` or `cancel`.
 * - `SENDING` with `sendCount` 0: confirmed for a later delivery (RocketMQ's timer messages: the
 *   confirm's time, else the `deliverAt` asked for at the prepare) or, on a queue ordered by key,
 *   for its key's turn (`key-order.ts`): nothing sent yet, `nextCheckAt` is the delivery time (or
 *   the confirm); the recovery job writes the first send then, once no older message of its key
 *   is unfinished (`delivered`), so the resend schedule counts from the delivery. It cannot be
 *   acknowledged or rejected before (`ILLEGAL_STATE`), nor resent when ordered by key.
 * - `SENDING`: confirmed and sent at least once (`sendCount` ≥ 1), waiting for the consumer's
 *   acknowledgement. Left by `acknowledge` to ACKNOWLEDGED. `recover` (the recovery job, given
 *   the outbox state of the last send) waits while that send is still in the outbox (an outage
 *   is never an attempt), then runs the acknowledgement wait from the broker's acknowledgement
 *   of the send, then resends (`sendCount` + 1) or, with `maxSends` sends used, marks it DEAD; a
 *   send the broker refused for good makes it DEAD at once. `reject` (the consumer's handler
 *   failed) redelivers after a short wait without spending a send, or at `maxRejects` makes it
 *   DEAD. An operator may `resend` (send once more) or `mark-dead` it.
 * - `DEAD`: SENDING with the dead flag: no job touches it; kept as the dead letter for review
 *   (and written to the dead-letter topic when it died). Left by an operator `resend` (the
 *   replay: sent once more, rejects forgotten, back under the recovery job; with `maxSends`
 *   used it goes DEAD again after one acknowledgement wait) or by `acknowledge` (a late consumer).
 * - `ACKNOWLEDGED`, `CANCELLED`: terminal, kept until the retention purge so the message id
 *   stays taken: a prepare of the id is refused (`ALREADY_EXISTS`).
 *
 * `delete` (operator, seed `deleteMessageByMessageId`) ends any phase. Every change raises
 * `version` by one; stores compare-and-set on it, so two writers never both act on one state.
 */
import { IllegalTransitionError } from "@msgx/core";
import { isKeyOrdered } from "./key-order.js";
import { ackWaitAfter, checkDelayOf, checkWaitAfter, rejectWaitAfter, type ReliableMessageOptions } from "./reliable-message-options.js";
import type { ReliableMessageErrorCode } from "./reliable-message-error.js";
import {
  ReliableMessagePhase,
  ReliableMessageStatus,
  reliableMessagePhase,
  sameContent,
  type ReliableMessage,
  type ReliableMessageDraft,
} from "./reliable-message.js";


/** Who asked: the producer's own call, the check-back or recovery job, an operator, the consumer. */
export type ReliableMessageActor = "producer" | "check-back" | "recovery" | "operator" | "consumer";

/**
 * The outbox state of a message's last send (its row `lastEventId`), which the recovery job reads:
 * `pending` (still in the outbox: the broker has not acknowledged it, an outage or a backlog),
 * `sent` at the broker's acknowledgement, `dead` (the broker refused the record for good), or
 * `unknown` (no row: treated as sent at `lastSentAt`).
 */
export type LastSendState =
  | { readonly state: "pending" }
  | { readonly state: "sent"; readonly at: number }
  | { readonly state: "dead"; readonly error: string }
  | { readonly state: "unknown" };

/** Who confirms or cancels a waiting message. */
export type ReliableMessageDecider = "producer" | "check-back" | "operator";

/** A draft as `checkReliableMessageDraft` returns it: every optional field filled. */
type CheckedDraft = Required<ReliableMessageDraft>;

/** What a caller wants done to one message; the input of {@link decideReliableMessage}. */
export type ReliableMessageCommand =
  /** `deliverAt`: the delivery time asked for (null: at the confirm); stored for the confirm. */
  | { readonly type: "save-waiting"; readonly draft: CheckedDraft; readonly deliverAt?: number | null }
  /** `deliverAt` later than now: stored SENDING and first sent then (a delayed message). */
  | { readonly type: "save-and-send"; readonly draft: CheckedDraft; readonly deliverAt?: number | null }
  /**
   * `deliverAt` later than now: confirmed, first sent then (a delayed message); null: sent at once;
   * undefined: at the time asked for at the prepare (the message's `deliverAt`), else at once.
   */
  | { readonly type: "confirm"; readonly by: ReliableMessageDecider; readonly deliverAt?: number | null }
  | { readonly type: "cancel"; readonly by: ReliableMessageDecider }
  | { readonly type: "defer-check" }
  /** Check-back gave up (`afterMaxChecks: "dead"`): hold the waiting message for review. */
  | { readonly type: "review" }
  /** The recovery job, with the outbox state of the last send (default `unknown`). */
  | { readonly type: "recover"; readonly lastSend?: LastSendState }
  | { readonly type: "resend"; /** Only a DEAD message (bulk resend of dead letters); otherwise a no-op. */ readonly onlyDead?: boolean }
  | { readonly type: "mark-dead"; readonly reason?: string }
  | { readonly type: "acknowledge" }
  /** The consumer's handler failed for good (past its own retries). */
  | { readonly type: "reject"; readonly reason: string }
  | { readonly type: "delete" };

/** What happened to a message; the input of {@link evolveReliableMessage}. */
export type ReliableMessageEvent =
  | { readonly type: "saved"; readonly draft: CheckedDraft; readonly deliverAt?: number | null }
  | { readonly type: "saved-and-sent"; readonly draft: CheckedDraft }
  | { readonly type: "confirmed"; readonly by: ReliableMessageDecider }
  /** Saved SENDING with nothing sent: the first send is due at `at`. */
  | { readonly type: "saved-and-scheduled"; readonly draft: CheckedDraft; readonly at: number }
  /** Confirmed with nothing sent: the first send is due at `at`. */
  | { readonly type: "scheduled"; readonly by: ReliableMessageDecider; readonly at: number }
  /** The first send of a delayed message, at its delivery time (the recovery job). */
  | { readonly type: "delivered" }
  | { readonly type: "check-deferred" }
  | { readonly type: "held-for-review" }
  | { readonly type: "cancelled"; readonly by: ReliableMessageDecider }
  | { readonly type: "resent"; readonly by: "recovery" | "operator" }
  /** The redelivery after a consumer's reject: a send that does not spend `maxSends`. */
  | { readonly type: "redelivered" }
  /** The recovery job looks again at `at`: the last send is still in the outbox, or its wait runs from the broker's acknowledgement. */
  | { readonly type: "rescheduled"; readonly at: number; readonly why: "send-pending" | "ack-wait" }
  /** A consumer's reject: redelivered after the reject wait, or DEAD when `final` (the `maxRejects`-th). */
  | { readonly type: "rejected"; readonly reason: string; readonly final: boolean }
  | { readonly type: "marked-dead"; readonly by: "recovery" | "operator"; readonly reason: string }
  | { readonly type: "acknowledged" }
  | { readonly type: "deleted"; readonly by: ReliableMessageActor };

/** The outcome of a command: an event to apply, nothing to do, or a refusal. */
export type ReliableMessageDecision =
  | { readonly kind: "apply"; readonly event: ReliableMessageEvent }
  | { readonly kind: "noop"; readonly reason: string }
  | { readonly kind: "reject"; readonly code: ReliableMessageErrorCode; readonly reason: string };

/** What the functions need besides the message: the time and the job timing. */
export interface ReliableMessageContext {
  readonly now: number;
  readonly options: ReliableMessageOptions;
}

const apply = (event: ReliableMessageEvent): ReliableMessageDecision => ({ kind: "apply", event });
const noop = (reason: string): ReliableMessageDecision => ({ kind: "noop", reason });
const reject = (code: ReliableMessageErrorCode, reason: string): ReliableMessageDecision => ({ kind: "reject", code, reason });

const P = ReliableMessagePhase;
/** A delivery time given and still ahead: the message is held until then. */
const isLater = (deliverAt: number | null | undefined, ctx: ReliableMessageContext): boolean => deliverAt !== undefined && deliverAt !== null && deliverAt > ctx.now;
/** When the first send of a scheduled message is due: the delivery time when ahead, else now (a key-ordered one waiting for its turn). */
const firstSendAt = (deliverAt: number | null | undefined, ctx: ReliableMessageContext): number => (isLater(deliverAt, ctx) ? deliverAt! : ctx.now);
/** Confirmed for a later delivery (or its key's turn) and not sent yet. */
const isScheduled = (m: ReliableMessage): boolean => m.status === ReliableMessageStatus.SENDING && m.sendCount === 0;
const isWaiting = (phase: ReliableMessagePhase): boolean => phase === P.WAITING_CONFIRM || phase === P.REVIEW;

/**
 * The sends of a message that spend `maxSends`: every send but the redeliveries after rejects
 * (one per counted reject; a pending one is not sent yet, so this holds whenever `rejectedAt` is null).
 */
export const sendsSpent = (m: ReliableMessage): number => Math.max(m.sendCount - m.rejectCount, 0);

/**
 * Decides `command` against the stored `message` (undefined when absent). Retries are no-ops:
 * saving the same content twice, confirming a confirmed message, cancelling a cancelled one,
 * acknowledging an acknowledged one. Pure: same inputs, same decision.
 */
export function decideReliableMessage(command: ReliableMessageCommand, message: ReliableMessage | undefined, ctx: ReliableMessageContext): ReliableMessageDecision {
  const phase = reliableMessagePhase(message);
  const absent = phase === P.ABSENT;
  switch (command.type) {
    case "save-waiting":
      if (absent) return apply({ type: "saved", draft: command.draft, deliverAt: command.deliverAt ?? null });
      return isWaiting(phase) && sameContent(message!, command.draft)
        ? noop("already saved")
        : reject("ALREADY_EXISTS", `message ${command.draft.messageId} exists (${phase})`);
    case "save-and-send":
      if (absent) {
        const ordered = isKeyOrdered(ctx.options, command.draft.consumerQueue, command.draft.key);
        return isLater(command.deliverAt, ctx) || ordered
          ? apply({ type: "saved-and-scheduled", draft: command.draft, at: firstSendAt(command.deliverAt, ctx) })
          : apply({ type: "saved-and-sent", draft: command.draft });
      }
      return (phase === P.SENDING || phase === P.DEAD) && sameContent(message!, command.draft)
        ? noop("already saved and sent")
        : reject("ALREADY_EXISTS", `message ${command.draft.messageId} exists (${phase})`);
    case "confirm":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (isWaiting(phase)) {
        // A time given at the confirm wins over the one asked for at the prepare.
        const at = command.deliverAt === undefined ? message!.deliverAt : command.deliverAt;
        // On a queue ordered by key the send waits for the key's turn (key-order.ts): scheduled, never sent here.
        return isLater(at, ctx) || isKeyOrdered(ctx.options, message!.consumerQueue, message!.key)
          ? apply({ type: "scheduled", by: command.by, at: firstSendAt(at, ctx) })
          : apply({ type: "confirmed", by: command.by });
      }
      return phase === P.CANCELLED ? reject("CONFLICT", "the message was cancelled") : noop(`already confirmed (${phase})`);
    case "cancel":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (isWaiting(phase)) return apply({ type: "cancelled", by: command.by });
      return phase === P.CANCELLED ? noop("already cancelled") : reject("ILLEGAL_STATE", `cannot cancel a confirmed message (${phase})`);
    case "defer-check":
      return phase === P.WAITING_CONFIRM ? apply({ type: "check-deferred" }) : noop(`no longer waiting (${phase})`);
    case "review":
      return phase === P.WAITING_CONFIRM ? apply({ type: "held-for-review" }) : noop(`no longer waiting (${phase})`);
    case "recover":
      return phase === P.SENDING ? decideRecover(message!, command.lastSend ?? { state: "unknown" }, ctx) : noop(`nothing to recover (${phase})`);
    case "resend":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (command.onlyDead === true && phase !== P.DEAD) return noop(`no longer dead (${phase})`);
      if ((phase === P.SENDING || phase === P.DEAD) && message!.sendCount === 0 && isKeyOrdered(ctx.options, message!.consumerQueue, message!.key)) {
        return reject("ILLEGAL_STATE", "a message ordered by key is first sent in its key's turn, never resent before");
      }
      if (phase === P.SENDING || phase === P.DEAD) return apply({ type: "resent", by: "operator" });
      return reject("ILLEGAL_STATE", isWaiting(phase) ? "cannot resend a message that is not confirmed" : `cannot resend a finished message (${phase})`);
    case "mark-dead":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (phase === P.DEAD) return noop("already dead");
      if (phase === P.SENDING) return apply({ type: "marked-dead", by: "operator", reason: command.reason ?? "marked dead by an operator" });
      return reject("ILLEGAL_STATE", isWaiting(phase) ? "cannot mark an unconfirmed message dead (cancel it)" : `cannot mark a finished message dead (${phase})`);
    case "acknowledge":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (phase === P.SENDING && isScheduled(message!)) return reject("ILLEGAL_STATE", "cannot acknowledge a message not delivered yet (delayed)");
      if (phase === P.SENDING || phase === P.DEAD) return apply({ type: "acknowledged" });
      return phase === P.ACKNOWLEDGED ? noop("already acknowledged") : reject("ILLEGAL_STATE", `cannot acknowledge a message that was never sent (${phase})`);
    case "reject": {
      if (absent) return reject("NOT_FOUND", "no such message");
      if (phase === P.DEAD || phase === P.ACKNOWLEDGED) return noop(`already ${phase === P.DEAD ? "dead" : "acknowledged"}`);
      if (phase !== P.SENDING || isScheduled(message!)) return reject("ILLEGAL_STATE", `cannot reject a message that was never sent (${phase})`);
      // A second reject of the same send (a duplicate delivery) is not a second failure.
      if (message!.rejectedAt !== null) return noop("a redelivery is already pending");
      return apply({ type: "rejected", reason: command.reason, final: message!.rejectCount + 1 >= ctx.options.maxRejects });
    }
    case "delete":
      return absent ? noop("already gone") : apply({ type: "deleted", by: "operator" });
  }
}

/**
 * The recovery decision for a SENDING message. A send still in the outbox is an outage, not an
 * attempt: look again after `outageRecheckMs`, never dead for it. The acknowledgement wait runs
 * from the broker's acknowledgement of the last send; then resend, or dead once `maxSends` sends
 * went unacknowledged. A send the broker refused for good is dead at once.
 */
function decideRecover(m: ReliableMessage, lastSend: LastSendState, ctx: ReliableMessageContext): ReliableMessageDecision {
  const { now, options } = ctx;
  if (m.nextCheckAt !== null && now < m.nextCheckAt) return noop("not due yet");
  if (isScheduled(m)) return apply({ type: "delivered" });
  if (m.rejectedAt !== null) return apply({ type: "redelivered" });
  if (lastSend.state === "pending") return apply({ type: "rescheduled", at: now + options.outageRecheckMs, why: "send-pending" });
  if (lastSend.state === "dead") return apply({ type: "marked-dead", by: "recovery", reason: `the broker refused the send: ${lastSend.error}` });
  const sentAt = lastSend.state === "sent" ? lastSend.at : (m.lastSentAt ?? m.updatedAt);
  const spent = sendsSpent(m);
  const dueAt = sentAt + ackWaitAfter(options, spent);
  if (now < dueAt) return m.nextCheckAt === dueAt ? noop("acknowledgement wait not over") : apply({ type: "rescheduled", at: dueAt, why: "ack-wait" });
  return spent >= options.maxSends
    ? apply({ type: "marked-dead", by: "recovery", reason: `never acknowledged after ${spent} sends` })
    : apply({ type: "resent", by: "recovery" });
}

const LEGAL_FROM: Readonly<Record<ReliableMessageEvent["type"], readonly ReliableMessagePhase[]>> = {
  saved: [P.ABSENT],
  "saved-and-sent": [P.ABSENT],
  "saved-and-scheduled": [P.ABSENT],
  confirmed: [P.WAITING_CONFIRM, P.REVIEW],
  scheduled: [P.WAITING_CONFIRM, P.REVIEW],
  delivered: [P.SENDING],
  "check-deferred": [P.WAITING_CONFIRM],
  "held-for-review": [P.WAITING_CONFIRM],
  cancelled: [P.WAITING_CONFIRM, P.REVIEW],
  resent: [P.SENDING, P.DEAD],
  redelivered: [P.SENDING],
  rescheduled: [P.SENDING],
  rejected: [P.SENDING],
  "marked-dead": [P.SENDING],
  acknowledged: [P.SENDING, P.DEAD],
  deleted: [P.WAITING_CONFIRM, P.REVIEW, P.SENDING, P.DEAD, P.ACKNOWLEDGED, P.CANCELLED],
};

/** True for the events whose new state must be sent: their outbox row commits with them. */
export const impliesSend = (event: ReliableMessageEvent): boolean =>
  event.type === "confirmed" || event.type === "saved-and-sent" || event.type === "resent" || event.type === "redelivered" || event.type === "delivered";

/** True for the events that make a message DEAD: their dead-letter row commits with them. */
export const impliesDeadLetter = (event: ReliableMessageEvent): boolean =>
  event.type === "marked-dead" || (event.type === "rejected" && event.final);

/**
 * The one choke point for every change of a message. Returns the new record, or undefined when
 * the event deletes it. Throws `IllegalTransitionError` for an event not legal in the current
 * phase: a bug of the caller, never input.
 */
export function evolveReliableMessage(message: ReliableMessage | undefined, event: ReliableMessageEvent, ctx: ReliableMessageContext): ReliableMessage | undefined {
  const phase = reliableMessagePhase(message);
  if (!LEGAL_FROM[event.type].includes(phase)) {
    throw new IllegalTransitionError(`message ${message?.messageId ?? "(absent)"}: ${event.type} is not legal from ${phase}`);
  }
  const { now, options } = ctx;
  switch (event.type) {
    case "saved":
      return { ...fresh(event.draft, now), deliverAt: event.deliverAt ?? null, nextCheckAt: now + checkDelayOf(options, event.draft.consumerQueue, event.draft.checkDelayMs) };
    case "saved-and-sent":
      return sent({ ...fresh(event.draft, now), status: ReliableMessageStatus.SENDING, confirmedAt: now }, ctx);
    case "saved-and-scheduled":
      return { ...fresh(event.draft, now), status: ReliableMessageStatus.SENDING, confirmedAt: now, deliverAt: event.at, nextCheckAt: event.at };
    case "deleted":
      return undefined;
  }
  const m = message!;
  const changed = { ...m, version: m.version + 1, updatedAt: now };
  switch (event.type) {
    case "confirmed":
      return sent({ ...changed, status: ReliableMessageStatus.SENDING, dead: false, confirmedAt: now }, ctx);
    case "scheduled":
      return { ...changed, status: ReliableMessageStatus.SENDING, dead: false, confirmedAt: now, nextCheckAt: event.at };
    case "delivered":
      return sent(changed, ctx);
    case "check-deferred": {
      const checkCount = m.checkCount + 1;
      return { ...changed, checkCount, nextCheckAt: now + checkWaitAfter(options, checkCount) };
    }
    case "held-for-review":
      return { ...changed, checkCount: m.checkCount + 1, dead: true, nextCheckAt: null };
    case "cancelled":
      return { ...changed, status: ReliableMessageStatus.CANCELLED, dead: false, nextCheckAt: null };
    case "resent":
      // An operator's resend of a DEAD message is the replay: the reject budget starts again.
      return sent({ ...changed, dead: false, rejectCount: phase === P.DEAD ? 0 : m.rejectCount }, ctx);
    case "redelivered":
      return sent(changed, ctx);
    case "rescheduled":
      return { ...changed, nextCheckAt: event.at };
    case "rejected": {
      const rejectCount = m.rejectCount + 1;
      return event.final
        ? { ...changed, rejectCount, lastError: event.reason, dead: true, nextCheckAt: null, rejectedAt: null }
        : { ...changed, rejectCount, lastError: event.reason, rejectedAt: now, nextCheckAt: now + rejectWaitAfter(options, rejectCount) };
    }
    case "marked-dead":
      return { ...changed, dead: true, nextCheckAt: null, rejectedAt: null, lastError: event.reason };
    case "acknowledged":
      return { ...changed, status: ReliableMessageStatus.ACKNOWLEDGED, dead: false, nextCheckAt: null, rejectedAt: null };
  }
}

/**
 * One more send: counted, timed, and due for the recovery job when its acknowledgement wait ends
 * (from the write; the job moves it to the broker's acknowledgement). Any pending redelivery is
 * this send. `lastEventId` is the store's to set.
 */
function sent(m: ReliableMessage, ctx: ReliableMessageContext): ReliableMessage {
  const next = { ...m, sendCount: m.sendCount + 1, rejectedAt: null, lastSentAt: ctx.now };
  return { ...next, nextCheckAt: ctx.now + ackWaitAfter(ctx.options, sendsSpent(next)) };
}

function fresh(draft: CheckedDraft, now: number): ReliableMessage {
  return {
    messageId: draft.messageId,
    version: 1,
    body: draft.body,
    dataType: draft.dataType,
    consumerQueue: draft.consumerQueue,
    status: ReliableMessageStatus.WAITING_CONFIRM,
    sendCount: 0,
    dead: false,
    checkCount: 0,
    nextCheckAt: null,
    lastSentAt: null,
    createdAt: now,
    updatedAt: now,
    confirmedAt: null,
    remark: draft.remark,
    field1: draft.field1,
    field2: draft.field2,
    field3: draft.field3,
    headers: draft.headers,
    checkDelayMs: draft.checkDelayMs,
    deliverAt: null,
    key: draft.key,
    orderSeq: null,
    lastEventId: null,
    rejectCount: 0,
    rejectedAt: null,
    lastError: null,
  };
}
