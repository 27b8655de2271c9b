import type { RequestCloseReason, RequestDraft, RequestMatch, RequestParams, RequestRecord } from "./request-record.js";
import { requestTypeOf } from "./request-record.js";
import { RequestStatus } from "./request-status.js";
import type { RequestMeta } from "./request-encoder.js";

/**
 * What happens to a request; the input of {@link evolveRequest}. Times are epoch ms.
 * - `send-attempted`: a send attempt starts and holds the request until `leaseUntil`.
 * - `send-failed`: the attempt failed (mailbox down, commit unknown…); the next one may start at
 *   `retryAt` and will look the row up first.
 * - `sent`: the outbound row is confirmed (`recovered`: found by lookup, not inserted now);
 *   `at` is when it was written.
 * - `picked-up`: the upstream stamped `DATE_SENT` on our row.
 * - `answered`: a reply matched (audit in `match`) and was applied in the pipeline transaction.
 * - `expired`: deadline passed (`timeout`) or a newer request of its type replaced it (`superseded`).
 */
export type RequestEvent =
  | { readonly type: "send-attempted"; readonly at: number; readonly leaseUntil: number }
  | { readonly type: "send-failed"; readonly at: number; readonly error: string; readonly retryAt: number }
  | { readonly type: "sent"; readonly at: number; readonly outboundId: number; readonly recovered: boolean; readonly timeoutMs: number }
  | { readonly type: "picked-up"; readonly at: number }
  | { readonly type: "answered"; readonly at: number; readonly match: RequestMatch }
  | { readonly type: "expired"; readonly at: number; readonly reason: Exclude<RequestCloseReason, "answered"> };

/** An event that is not legal in the request's status: a bug of the caller, never input. */
export class IllegalRequestTransitionError extends Error {
  override readonly name = "IllegalRequestTransitionError";
}

const { REGISTERED, SENT, WAITING, DONE, EXPIRED } = RequestStatus;

const LEGAL_FROM: Readonly<Record<RequestEvent["type"], readonly RequestStatus[]>> = {
  "send-attempted": [REGISTERED],
  "send-failed": [REGISTERED],
  sent: [REGISTERED],
  "picked-up": [SENT],
  answered: [SENT, WAITING],
  expired: [REGISTERED, SENT, WAITING],
};

/** What registration needs; the coordinator fills it from its options and clock. */
export interface RegistrationInput {
  readonly params: RequestParams;
  readonly meta: RequestMeta;
  readonly routingId: string;
  readonly rawXml: string;
  readonly requestedBy: string;
  readonly now: number;
  readonly timeoutMs: number;
}

/** A new REGISTERED request (version 1), before the store gives it an id. */
export function registerRequest(input: RegistrationInput): RequestDraft {
  return {
    requestType: requestTypeOf(input.params),
    params: input.params,
    status: REGISTERED,
    version: 1,
    sndr: input.meta.sndr,
    seqn: input.meta.seqn,
    dttm: input.meta.dttm,
    routingId: input.routingId,
    rawXml: input.rawXml,
    requestedBy: input.requestedBy,
    registeredAt: input.now,
    deadlineAt: input.now + input.timeoutMs,
    sendAttempts: 0,
    lastAttemptAt: null,
    nextAttemptAt: null,
    lastError: null,
    outboundId: null,
    sentAt: null,
    pickedUpAt: null,
    closedAt: null,
    closeReason: null,
    match: null,
  };
}

/**
 * The one choke point for every change of a request. Returns the new record (version + 1).
 * Throws {@link IllegalRequestTransitionError} for an event not legal in the current status: in
 * particular DONE and EXPIRED accept nothing, so a closed request never changes.
 */
export function evolveRequest(r: RequestRecord, event: RequestEvent): RequestRecord {
  if (!LEGAL_FROM[event.type].includes(r.status)) {
    throw new IllegalRequestTransitionError(`request ${r.requestId}: ${event.type} is not legal from ${r.status}`);
  }
  const next = { ...r, version: r.version + 1 };
  switch (event.type) {
    case "send-attempted":
      return { ...next, sendAttempts: r.sendAttempts + 1, lastAttemptAt: event.at, nextAttemptAt: event.leaseUntil };
    case "send-failed":
      return { ...next, lastError: event.error, nextAttemptAt: event.retryAt };
    case "sent":
      return { ...next, status: SENT, outboundId: event.outboundId, sentAt: event.at, deadlineAt: event.at + event.timeoutMs, nextAttemptAt: null, lastError: null };
    case "picked-up":
      return { ...next, status: WAITING, pickedUpAt: event.at };
    case "answered":
      return { ...next, status: DONE, closedAt: event.at, closeReason: "answered", match: event.match, nextAttemptAt: null };
    case "expired":
      return { ...next, status: EXPIRED, closedAt: event.at, closeReason: event.reason, nextAttemptAt: null };
  }
}

/** What the coordinator should do with one open request now; the input of its step. */
export type RequestAction =
  | { readonly type: "expire" }
  /** Start a send attempt; `lookupFirst` when an earlier attempt may have inserted the row. */
  | { readonly type: "send"; readonly lookupFirst: boolean }
  /** SENT: look at the outbound row for the upstream's `DATE_SENT`. */
  | { readonly type: "observe" }
  /** Nothing now; `until` is when something is due (null: never). */
  | { readonly type: "wait"; readonly until: number | null };

/**
 * Decides what one request needs at `now`. Pure. A closed request needs nothing; an open one
 * past its deadline expires; a REGISTERED one is sent once no attempt holds it (the first
 * attempt inserts, every later one looks the row up first: no blind resend); a SENT one is
 * observed for pick-up.
 */
export function decideRequest(r: RequestRecord, now: number): RequestAction {
  if (r.status === DONE || r.status === EXPIRED) return { type: "wait", until: null };
  if (now >= r.deadlineAt) return { type: "expire" };
  if (r.status === REGISTERED) {
    if (r.nextAttemptAt !== null && now < r.nextAttemptAt) return { type: "wait", until: Math.min(r.nextAttemptAt, r.deadlineAt) };
    return { type: "send", lookupFirst: r.sendAttempts > 0 };
  }
  if (r.status === SENT) return { type: "observe" };
  return { type: "wait", until: r.deadlineAt };
}
