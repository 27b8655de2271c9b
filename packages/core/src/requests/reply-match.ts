import { dttmToEpochMs } from "./dttm-instant.js";
import type { OpenRequest } from "./open-request.js";
import type { ValueOf } from "../base/states.js";

/**
 * Which rule matched a reply to its request; stored on the request (`RequestMatch`) as the audit.
 * - `exact`: the reply echoed fields of the request (e.g. SNDR, SEQN) and exactly one open request
 *   of the reply's type carries those values.
 * - `fallback`: the reply echoes nothing (WIRE.md: the upstream does not echo today), so the
 *   declared fallback of SPEC §2.6 applies: same request type, open, reply DTTM ≥ sentAt.
 *   It is **not** an exact correlation: a reply to an older, superseded request of the same
 *   type that arrives after the newer one was sent is taken as the newer one's answer (the
 *   cross-generation risk seed 000 §4.2 asks to accept explicitly and audit).
 */
export const MatchRule = { EXACT: "exact", FALLBACK: "fallback" } as const;
export type MatchRule = ValueOf<typeof MatchRule>;

/** What matching knows about a reply. */
export interface ReplyFacts {
  /** `RQFD` for a `SCHD/RESP`, `RQRD/<rtype>` for a `<rtype>/RESP`. */
  readonly requestType: string;
  /** META DTTM, airport local `yyyyMMddHHmmss`. */
  readonly dttm: string;
  /** Fields the reply echoed from our request; absent or empty when it echoed none. */
  readonly echo?: Readonly<Record<string, string>>;
}

export interface ReplyMatch {
  readonly request: OpenRequest;
  readonly rule: MatchRule;
  /** The reply's DTTM as an instant (epoch ms), zone normalized. */
  readonly replyAt: number;
  /** The rule and the values compared, for the request's audit. */
  readonly detail: string;
}

export interface ReplyMatchOptions {
  /** Airport local time = UTC + this (DTTM carries no zone). */
  readonly airportUtcOffsetMinutes: number;
}

/** The request type of an open-request view (`RQFD`, `RQRD/<rtype>`). */
export const openRequestType = (r: OpenRequest): string => (r.kind === "RQFD" ? "RQFD" : `RQRD/${r.rtype ?? ""}`);

/**
 * DTTM has whole seconds, sentAt milliseconds. Both are compared as instants (the DTTM read at the
 * airport's offset, at the start of its second), so a reply stamped in the second the request was
 * written, but before it, is refused: a reply is never taken as younger than it can be shown to be.
 */
const iso = (ms: number): string => new Date(ms).toISOString();

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/**
 * The open request a reply answers, and by which rule; undefined when none (the reply then
 * changes nothing: SKIPPED `no-request`). Pure.
 *
 * 1. A reply that echoes fields is matched exactly: the one open request of its type whose echo
 *    has every echoed value. An echo that names no open request matches nothing (it answers a
 *    closed or foreign request); it never falls back.
 * 2. Otherwise the declared fallback: an open request of the same type with
 *    `sentAt ≤ reply instant` (the DTTM read at the airport's offset, see above);
 *    the most recently sent when several (there is at most one open per type).
 * A reply whose DTTM does not parse matches nothing.
 */
export function matchReply(open: readonly OpenRequest[], reply: ReplyFacts, options: ReplyMatchOptions): ReplyMatch | undefined {
  const replyAt = dttmToEpochMs(reply.dttm, options.airportUtcOffsetMinutes);
  if (replyAt === undefined) return undefined;
  const sameType = open.filter((r) => openRequestType(r) === reply.requestType);
  const echoed = Object.entries(reply.echo ?? {});
  if (echoed.length > 0) {
    const hits = sameType.filter((r) => echoed.every(([k, v]) => r.echo?.[k] === v));
    const [hit] = hits;
    if (hit === undefined || hits.length > 1) return undefined;
    const fields = echoed.map(([k, v]) => `${k}=${v}`).join(", ");
    return { request: hit, rule: MatchRule.EXACT, replyAt, detail: `exact: reply echoes ${fields} of request ${hit.requestId} (${reply.requestType})` };
  }
  let best: OpenRequest | undefined;
  for (const r of sameType) {
    if (r.sentAt > replyAt) continue;
    if (best === undefined || r.sentAt > best.sentAt) best = r;
  }
  if (best === undefined) return undefined;
  return {
    request: best,
    rule: MatchRule.FALLBACK,
    replyAt,
    detail:
      `fallback (no echo): same type ${reply.requestType}, open, reply DTTM ${reply.dttm} ` +
      `(${offsetText(options.airportUtcOffsetMinutes)} → ${iso(replyAt)}) ≥ sentAt ${iso(best.sentAt)}`,
  };
}
