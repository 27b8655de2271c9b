import type { ApiCaller } from "@msgx/core";
import type { LastSendState, ReliableMessageEvent } from "./message-machine.js";
import { reliableMessagePhase, type ReliableMessage, type ReliableMessagePhase } from "./reliable-message.js";

/**
 * Why a message changed: a closed union, one kind per way a change can be asked for.
 * - `api`: an HTTP call (producer, consumer or operator route) and who made it.
 * - `check-back`: the check-back job, with the producer's answer (`CONFIRM`, `DELETE`, `LATER`,
 *   the checker's error, or that no checker is registered).
 * - `recovery`: the recovery job, with the outbox state of the last send it decided on.
 * - `library`: an in-process call that named no cause (code using `@msgx/reliable` directly).
 */
export type ReliableMessageCause =
  | { readonly kind: "api"; readonly caller: ApiCaller }
  | { readonly kind: "check-back"; readonly answer: string }
  | { readonly kind: "recovery"; readonly lastSend: LastSendState["state"] }
  | { readonly kind: "library" };

/** The cause of a call that names none. */
export const LIBRARY_CAUSE: ReliableMessageCause = { kind: "library" };

/**
 * One state change of a message, as its history keeps it. Every applied event writes exactly one
 * entry, in the same transaction as the change (`runReliableMessageCommand` builds it, the store
 * writes it); the entries of a message are its versions 1, 2, … in order, and the `to` of the last
 * one is the message's phase now. A message that is deleted or purged takes its history with it.
 */
export interface ReliableMessageHistoryEntry {
  readonly messageId: string;
  /** The message's version after the change (1 for the prepare). */
  readonly version: number;
  /** When the change was written, epoch ms. */
  readonly at: number;
  readonly from: ReliableMessagePhase;
  readonly to: ReliableMessagePhase;
  /** The machine's event (`confirmed`, `resent`, `rejected`, …). */
  readonly event: ReliableMessageEvent["type"];
  /** What the event carried, for a reader: the send number, the reject or dead reason, the next look. */
  readonly detail: string | null;
  readonly cause: ReliableMessageCause;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The entry of `event` taking `before` to `after` (which must exist: a delete keeps no history). */
export function historyEntry(before: ReliableMessage | undefined, after: ReliableMessage, event: ReliableMessageEvent, cause: ReliableMessageCause, at: number): ReliableMessageHistoryEntry {
  return {
    messageId: after.messageId,
    version: after.version,
    at,
    from: reliableMessagePhase(before),
    to: reliableMessagePhase(after),
    event: event.type,
    detail: historyDetail(event, after),
    cause,
  };
}

/** The reader's line for an event: what it carried and what it made of the message. */
function historyDetail(event: ReliableMessageEvent, m: ReliableMessage): string | null {
  switch (event.type) {
    case "saved":
      return m.deliverAt !== null ? `delivery asked for ${iso(m.deliverAt)}` : null;
    case "saved-and-sent":
    case "delivered":
    case "redelivered":
      return `send #${m.sendCount}${event.type === "redelivered" ? " (after a reject)" : ""}`;
    case "confirmed":
      return `by ${event.by}, send #${m.sendCount}`;
    case "saved-and-scheduled":
      return `first send at ${iso(event.at)}`;
    case "scheduled":
      return `by ${event.by}, first send at ${iso(event.at)}`;
    case "check-deferred":
      return `check #${m.checkCount}, next at ${m.nextCheckAt === null ? "-" : iso(m.nextCheckAt)}`;
    case "held-for-review":
      return `no answer after ${m.checkCount} checks`;
    case "cancelled":
      return `by ${event.by}`;
    case "resent":
      return `by ${event.by}, send #${m.sendCount}`;
    case "rescheduled":
      return `${event.why === "send-pending" ? "last send still in the outbox" : "waiting for the acknowledgement"}, next look at ${iso(event.at)}`;
    case "rejected":
      return `reject #${m.rejectCount}${event.final ? " (the last allowed)" : ""}: ${event.reason}`;
    case "marked-dead":
      return `by ${event.by}: ${event.reason}`;
    case "acknowledged":
      return `after ${m.sendCount} send(s)`;
    case "deleted":
      return null;
  }
}

/**
 * The phase the history says a message is in: the `to` of its newest entry, ABSENT for none. The
 * contract suites hold that this equals the stored message's phase after any run of commands.
 */
export const phaseOfHistory = (history: readonly ReliableMessageHistoryEntry[]): ReliableMessagePhase =>
  history.length === 0 ? "ABSENT" : history[history.length - 1]!.to;
