import type { OpenRequest } from "./open-request.js";
import type { MatchRule } from "./reply-match.js";
import type { RequestStatus } from "./request-status.js";

/** What is asked upstream (WIRE.md "Outbound requests"). */
export type RequestParams =
  /** A schedule range: ISO local `yyyy-MM-ddTHH:mm`, inclusive both sides (`STDB`, `STDE`). */
  | { readonly kind: "RQFD"; readonly from: string; readonly to: string }
  /** The reference data of one type (`RTYP`, also the STYP of the request). */
  | { readonly kind: "RQRD"; readonly rtype: string };

/** How a request was closed. */
export type RequestCloseReason = "answered" | "timeout" | "superseded";

/** The audit of the reply that closed a request: which rule matched and on which facts. */
export interface RequestMatch {
  readonly rule: MatchRule;
  /** The mailbox id of the reply. */
  readonly msgId: number;
  /** The reply's META DTTM (airport local) and the instant it was read as. */
  readonly replyDttm: string;
  readonly replyAt: number;
  /** A human-readable statement of the rule and the values it compared. */
  readonly detail: string;
}

/**
 * One `REQ_TRACK` row. Times are epoch milliseconds. `version` rises by one with every change;
 * stores compare-and-set on it.
 */
export interface RequestRecord {
  readonly requestId: string;
  /** One open request per type: `RQFD`, or `RQRD/<rtype>`. */
  readonly requestType: string;
  readonly params: RequestParams;
  readonly status: RequestStatus;
  readonly version: number;
  /** The META we wrote (our SNDR, our counter's SEQN, DTTM airport local at registration). */
  readonly sndr: string;
  readonly seqn: number;
  readonly dttm: string;
  /** `COUTMSGS.ROUTINGID` and the exact text written (the key of crash recovery). */
  readonly routingId: string;
  readonly rawXml: string;
  /** Who asked (operator, CLI, HTTP). */
  readonly requestedBy: string;
  readonly registeredAt: number;
  /** When it expires if still open: registration + timeout, then sentAt + timeout. */
  readonly deadlineAt: number;
  readonly sendAttempts: number;
  readonly lastAttemptAt: number | null;
  /**
   * When the next send attempt may start while REGISTERED: the lease of a running attempt (a
   * crashed one is taken over after it), or the retry time after a failed one. Null when due.
   */
  readonly nextAttemptAt: number | null;
  readonly lastError: string | null;
  /** `COUTMSGS.ID`, once confirmed. */
  readonly outboundId: number | null;
  /** When the outbound row was written (confirmed). Replies older than this never match. */
  readonly sentAt: number | null;
  /** When the upstream's `DATE_SENT` was seen (WAITING). */
  readonly pickedUpAt: number | null;
  readonly closedAt: number | null;
  readonly closeReason: RequestCloseReason | null;
  readonly match: RequestMatch | null;
}

/** A request before the store gave it an id. */
export type RequestDraft = Omit<RequestRecord, "requestId">;

/** The request type of `params`: at most one open request per type. */
export const requestTypeOf = (params: RequestParams): string => (params.kind === "RQFD" ? "RQFD" : `RQRD/${params.rtype}`);

/** The fields a reply would echo if the upstream echoed our request (exact matching). */
/** SEQN as the upstream writes it (WIRE.md): six digits, zero-padded (wider only for a range configured past 999999). */
export const formatSeqn = (seqn: number): string => String(seqn).padStart(6, "0");

export const requestEcho = (r: Pick<RequestRecord, "sndr" | "seqn">): Readonly<Record<string, string>> => ({ SNDR: r.sndr, SEQN: formatSeqn(r.seqn) });

/**
 * The view reply matching works on. Only a request confirmed as sent has one (undefined
 * otherwise): a reply can never answer what was not sent.
 */
export function toOpenRequest(r: RequestRecord): OpenRequest | undefined {
  if (r.sentAt === null) return undefined;
  const base = { requestId: r.requestId, sentAt: r.sentAt, echo: requestEcho(r) };
  return r.params.kind === "RQFD"
    ? { ...base, kind: "RQFD", from: r.params.from, to: r.params.to }
    : { ...base, kind: "RQRD", rtype: r.params.rtype };
}
