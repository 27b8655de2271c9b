import type { ApiCaller, CursorPage } from "@msgx/core";
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
 * One state change of a message, as its history keeps it. Every applied event writes one entry, in
 * the same transaction as the change (`runReliableMessageCommand` builds it, the store writes it),
 * except that a run of identical "still waiting" changes is one entry ({@link collapsesInto}):
 * versions strictly increase, the newest entry's is the message's version, and the `to` of the
 * last one is the message's phase now. A message that is deleted or purged takes its history with it.
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
  /** How many changes this entry stands for: 1, or n for n identical waits in a row (`version` and `at` are the last one's). */
  readonly repeats: number;
  /** When the first of them was written, epoch ms (`at` for a single change). */
  readonly firstAt: number;
}

/** A page of a message's history, newest first; `next` is the `beforeVersion` of the page after it. */
export type ReliableMessageHistoryPage = CursorPage<"entries", ReliableMessageHistoryEntry, number>;

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
    repeats: 1,
    firstAt: at,
  };
}

/**
 * True when `entry` is a recheck of a message whose last send is still in the outbox (the broker
 * away): the recovery job makes one every `outageRecheckMs`, so a long outage would otherwise
 * write thousands of identical entries per message.
 */
export const isOutageRecheck = (entry: ReliableMessageHistoryEntry): boolean =>
  entry.event === "rescheduled" && entry.cause.kind === "recovery" && entry.cause.lastSend === "pending";

/**
 * The collapse rule: `next` folds into the message's newest entry `last` when both are outage
 * rechecks between the same phases. The stores then replace `last` with {@link collapsed} instead
 * of appending, so the entries still replay to the phase and the newest one's version is the
 * message's. (The PostgreSQL store states the same test in its UPDATE's WHERE.)
 */
export const collapsesInto = (last: ReliableMessageHistoryEntry | undefined, next: ReliableMessageHistoryEntry): last is ReliableMessageHistoryEntry =>
  last !== undefined && isOutageRecheck(next) && isOutageRecheck(last) && last.from === next.from && last.to === next.to && last.version < next.version;

/** `last` moved on by `next`: `next`'s version, time and detail, one more repeat, `last`'s first time. */
export const collapsed = (last: ReliableMessageHistoryEntry, next: ReliableMessageHistoryEntry): ReliableMessageHistoryEntry => ({
  ...next,
  repeats: last.repeats + next.repeats,
  firstAt: last.firstAt,
});

/** `history` with `entry` written the way the stores write it: folded into the newest entry, or appended. */
export function withHistoryEntry(history: readonly ReliableMessageHistoryEntry[], entry: ReliableMessageHistoryEntry): ReliableMessageHistoryEntry[] {
  const last = history.at(-1);
  return collapsesInto(last, entry) ? [...history.slice(0, -1), collapsed(last, entry)] : [...history, entry];
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
