/**
 * The lifecycle of one reliable message (SPEC §4, seed 002), as pure functions: `decideReliableMessage`
 * turns a command into an event (or a no-op, or a refusal), `evolveReliableMessage` applies the event.
 * Only the events marked by {@link impliesSend} send, and the service writes their outbox row in
 * the same store transaction as the new state: a status change and its send never split.
 *
 * Phases (`reliableMessagePhase`):
 * - `ABSENT`: no record. The start (nothing saved yet) and the end (cancelled because the
 *   business action did not commit, or acknowledged by the consumer). Left by `save-waiting`
 *   (to WAITING_CONFIRM) or `save-and-send` (to SENDING, sent).
 * - `WAITING_CONFIRM`: saved before the producer's business transaction; never sent. Left by
 *   `confirm` (producer, or the check-back job when the checker finds the business committed)
 *   to SENDING with the first send, or by `cancel` (producer rollback, or the checker finds
 *   it will never commit) to ABSENT. Once `checkAfterMs` old the check-back job asks the
 *   producer; an inconclusive answer (`defer-check`) keeps it here with `checkCount` + 1.
 * - `SENDING`: confirmed and sent at least once (`sendCount` ≥ 1), waiting for the consumer's
 *   acknowledgement. Left by `acknowledge` to ABSENT. When the acknowledgement wait of its last
 *   send is over, `recover` resends it (a new outbox row, `sendCount` + 1) or, with `maxSends`
 *   used, marks it DEAD. An operator may `resend` (send once more) or `mark-dead` it.
 * - `DEAD`: SENDING with the dead flag: no job touches it; kept as the dead letter for review.
 *   Left by an operator `resend` (sent once more and back to SENDING under the recovery job
 *   again; with `maxSends` used it goes DEAD again after one acknowledgement wait) or by
 *   `acknowledge` (a late consumer) to ABSENT.
 *
 * `delete` (operator, seed `deleteMessageByMessageId`) ends any phase. Every change raises
 * `version` by one; stores compare-and-set on it, so two writers never both act on one state.
 */
import { IllegalTransitionError } from "../processing/proc-machine.js";
import { ackWaitAfter, checkWaitAfter, type ReliableMessageOptions } from "./reliable-message-options.js";
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

/** What a caller wants done to one message; the input of {@link decideReliableMessage}. */
export type ReliableMessageCommand =
  | { readonly type: "save-waiting"; readonly draft: Required<ReliableMessageDraft> }
  | { readonly type: "save-and-send"; readonly draft: Required<ReliableMessageDraft> }
  | { readonly type: "confirm"; readonly by: "producer" | "check-back" }
  | { readonly type: "cancel"; readonly by: "producer" | "check-back" }
  | { readonly type: "defer-check" }
  | { readonly type: "recover" }
  | { readonly type: "resend"; /** Only a DEAD message (bulk resend of dead letters); otherwise a no-op. */ readonly onlyDead?: boolean }
  | { readonly type: "mark-dead" }
  | { readonly type: "acknowledge" }
  | { readonly type: "delete" };

/** What happened to a message; the input of {@link evolveReliableMessage}. */
export type ReliableMessageEvent =
  | { readonly type: "saved"; readonly draft: Required<ReliableMessageDraft> }
  | { readonly type: "saved-and-sent"; readonly draft: Required<ReliableMessageDraft> }
  | { readonly type: "confirmed"; readonly by: "producer" | "check-back" }
  | { readonly type: "check-deferred" }
  | { readonly type: "resent"; readonly by: "recovery" | "operator" }
  | { readonly type: "marked-dead"; readonly by: "recovery" | "operator" }
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

/**
 * Decides `command` against the stored `message` (undefined when absent). Retries are no-ops:
 * saving the same content twice, confirming a confirmed message, cancelling or acknowledging a
 * message that is gone. Pure: same inputs, same decision.
 */
export function decideReliableMessage(command: ReliableMessageCommand, message: ReliableMessage | undefined, ctx: ReliableMessageContext): ReliableMessageDecision {
  const phase = reliableMessagePhase(message);
  const absent = phase === ReliableMessagePhase.ABSENT;
  switch (command.type) {
    case "save-waiting":
      if (absent) return apply({ type: "saved", draft: command.draft });
      return phase === ReliableMessagePhase.WAITING_CONFIRM && sameContent(message!, command.draft)
        ? noop("already saved")
        : reject("ALREADY_EXISTS", `message ${command.draft.messageId} exists (${phase})`);
    case "save-and-send":
      if (absent) return apply({ type: "saved-and-sent", draft: command.draft });
      return phase !== ReliableMessagePhase.WAITING_CONFIRM && sameContent(message!, command.draft)
        ? noop("already saved and sent")
        : reject("ALREADY_EXISTS", `message ${command.draft.messageId} exists (${phase})`);
    case "confirm":
      if (absent) return reject("NOT_FOUND", "no such message");
      return phase === ReliableMessagePhase.WAITING_CONFIRM ? apply({ type: "confirmed", by: command.by }) : noop("already confirmed");
    case "cancel":
      if (absent) return noop("already gone");
      return phase === ReliableMessagePhase.WAITING_CONFIRM
        ? apply({ type: "deleted", by: command.by })
        : reject("ILLEGAL_STATE", `cannot cancel a confirmed message (${phase})`);
    case "defer-check":
      return phase === ReliableMessagePhase.WAITING_CONFIRM ? apply({ type: "check-deferred" }) : noop(`no longer waiting (${phase})`);
    case "recover": {
      if (phase !== ReliableMessagePhase.SENDING) return noop(`nothing to recover (${phase})`);
      const m = message!;
      const dueAt = (m.lastSentAt ?? m.updatedAt) + ackWaitAfter(ctx.options, m.sendCount);
      if (ctx.now < dueAt) return noop("acknowledgement wait not over");
      return m.sendCount >= ctx.options.maxSends ? apply({ type: "marked-dead", by: "recovery" }) : apply({ type: "resent", by: "recovery" });
    }
    case "resend":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (command.onlyDead === true && phase !== ReliableMessagePhase.DEAD) return noop(`no longer dead (${phase})`);
      return phase === ReliableMessagePhase.WAITING_CONFIRM
        ? reject("ILLEGAL_STATE", "cannot resend a message that is not confirmed")
        : apply({ type: "resent", by: "operator" });
    case "mark-dead":
      if (absent) return reject("NOT_FOUND", "no such message");
      if (phase === ReliableMessagePhase.WAITING_CONFIRM) return reject("ILLEGAL_STATE", "cannot mark an unconfirmed message dead (cancel it)");
      return phase === ReliableMessagePhase.DEAD ? noop("already dead") : apply({ type: "marked-dead", by: "operator" });
    case "acknowledge":
      if (absent) return noop("already acknowledged");
      return phase === ReliableMessagePhase.WAITING_CONFIRM
        ? reject("ILLEGAL_STATE", "cannot acknowledge a message that was never sent")
        : apply({ type: "deleted", by: "consumer" });
    case "delete":
      return absent ? noop("already gone") : apply({ type: "deleted", by: "operator" });
  }
}

const LEGAL_FROM: Readonly<Record<ReliableMessageEvent["type"], readonly ReliableMessagePhase[]>> = {
  saved: [ReliableMessagePhase.ABSENT],
  "saved-and-sent": [ReliableMessagePhase.ABSENT],
  confirmed: [ReliableMessagePhase.WAITING_CONFIRM],
  "check-deferred": [ReliableMessagePhase.WAITING_CONFIRM],
  resent: [ReliableMessagePhase.SENDING, ReliableMessagePhase.DEAD],
  "marked-dead": [ReliableMessagePhase.SENDING],
  deleted: [ReliableMessagePhase.WAITING_CONFIRM, ReliableMessagePhase.SENDING, ReliableMessagePhase.DEAD],
};

/** True for the events whose new state must be sent: their outbox row commits with them. */
export const impliesSend = (event: ReliableMessageEvent): boolean =>
  event.type === "confirmed" || event.type === "saved-and-sent" || event.type === "resent";

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
      return { ...fresh(event.draft, now), nextCheckAt: now + options.checkAfterMs };
    case "saved-and-sent":
      return sent({ ...fresh(event.draft, now), status: ReliableMessageStatus.SENDING, confirmedAt: now }, ctx);
    case "deleted":
      return undefined;
  }
  const m = message!;
  const changed = { ...m, version: m.version + 1, updatedAt: now };
  switch (event.type) {
    case "confirmed":
      return sent({ ...changed, status: ReliableMessageStatus.SENDING, confirmedAt: now }, ctx);
    case "check-deferred": {
      const checkCount = m.checkCount + 1;
      return { ...changed, checkCount, nextCheckAt: now + checkWaitAfter(options, checkCount) };
    }
    case "resent":
      return sent({ ...changed, dead: false }, ctx);
    case "marked-dead":
      return { ...changed, dead: true, nextCheckAt: null };
  }
}

/** One more send: counted, timed, and due for the recovery job when its acknowledgement wait ends. */
function sent(m: ReliableMessage, ctx: ReliableMessageContext): ReliableMessage {
  const sendCount = m.sendCount + 1;
  return { ...m, sendCount, lastSentAt: ctx.now, nextCheckAt: ctx.now + ackWaitAfter(ctx.options, sendCount) };
}

function fresh(draft: Required<ReliableMessageDraft>, now: number): ReliableMessage {
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
  };
}
