import type { MatchRule, RequestCloseReason, RequestParams, RequestRecord, RequestStatus } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { toMs, toMsOrNull, toNumber } from "../rows/values.js";

/** A `req_track` row as the drivers return it (`req_id` as text). */
export interface RequestRow {
  readonly req_id: string;
  readonly req_type: string;
  readonly status: string;
  readonly version: unknown;
  readonly kind: string;
  readonly rtype: string | null;
  readonly range_from: string | null;
  readonly range_to: string | null;
  readonly sndr: string;
  readonly seqn: unknown;
  readonly dttm: string;
  readonly routing_id: string;
  readonly raw_xml: string;
  readonly requested_by: string;
  readonly registered_at: unknown;
  readonly deadline_at: unknown;
  readonly send_attempts: unknown;
  readonly last_attempt_at: unknown;
  readonly next_attempt_at: unknown;
  readonly last_error: string | null;
  readonly outbound_id: unknown;
  readonly sent_at: unknown;
  readonly picked_up_at: unknown;
  readonly closed_at: unknown;
  readonly close_reason: string | null;
  readonly reply_msg_id: unknown;
  readonly match_mode: string | null;
  readonly reply_dttm: string | null;
  readonly reply_at: unknown;
  readonly match_detail: string | null;
}

/** Every written column, in the order `requestValues` gives them (`req_id` is the key, not written). */
export const REQUEST_COLUMNS =
  "req_type, status, version, kind, rtype, range_from, range_to, sndr, seqn, dttm, routing_id, raw_xml, requested_by, echo, " +
  "registered_at, deadline_at, send_attempts, last_attempt_at, next_attempt_at, last_error, outbound_id, sent_at, picked_up_at, " +
  "closed_at, close_reason, reply_msg_id, match_mode, reply_dttm, reply_at, match_detail";

/** What a select gives: the id as text, then every column. */
export const REQUEST_SELECT = `req_id::text AS req_id, ${REQUEST_COLUMNS}`;

const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : toNumber(v));

export function requestFromRow(r: RequestRow): RequestRecord {
  const params: RequestParams = r.kind === "RQRD" ? { kind: "RQRD", rtype: r.rtype ?? "" } : { kind: "RQFD", from: r.range_from ?? "", to: r.range_to ?? "" };
  const replyMsgId = numOrNull(r.reply_msg_id);
  return {
    requestId: r.req_id,
    requestType: r.req_type,
    params,
    status: r.status as RequestStatus,
    version: toNumber(r.version),
    sndr: r.sndr,
    seqn: toNumber(r.seqn),
    dttm: r.dttm,
    routingId: r.routing_id,
    rawXml: r.raw_xml,
    requestedBy: r.requested_by,
    registeredAt: toMs(r.registered_at),
    deadlineAt: toMs(r.deadline_at),
    sendAttempts: toNumber(r.send_attempts),
    lastAttemptAt: toMsOrNull(r.last_attempt_at),
    nextAttemptAt: toMsOrNull(r.next_attempt_at),
    lastError: r.last_error,
    outboundId: numOrNull(r.outbound_id),
    sentAt: toMsOrNull(r.sent_at),
    pickedUpAt: toMsOrNull(r.picked_up_at),
    closedAt: toMsOrNull(r.closed_at),
    closeReason: r.close_reason as RequestCloseReason | null,
    match:
      r.match_mode === null || replyMsgId === null
        ? null
        : { rule: r.match_mode as MatchRule, msgId: replyMsgId, replyDttm: r.reply_dttm ?? "", replyAt: toMs(r.reply_at), detail: r.match_detail ?? "" },
  };
}

/** An epoch-millisecond instant as a `timestamptz` parameter (exact to the millisecond). */
const ts = (ms: number | null): RawBuilder<Date | null> =>
  ms === null ? sql<null>`NULL::timestamptz` : sql<Date>`${new Date(ms).toISOString()}::timestamptz`;

/** The values of a request in `REQUEST_COLUMNS` order, as one parenthesized list. */
export function requestValues(r: Omit<RequestRecord, "requestId">): RawBuilder<unknown> {
  const p = r.params;
  const m = r.match;
  const echo = JSON.stringify({ SNDR: r.sndr, SEQN: String(r.seqn) });
  return sql`(
    ${r.requestType}, ${r.status}, ${r.version}::integer, ${p.kind}, ${p.kind === "RQRD" ? p.rtype : null}, ${p.kind === "RQFD" ? p.from : null},
    ${p.kind === "RQFD" ? p.to : null}, ${r.sndr}, ${r.seqn}::bigint, ${r.dttm}, ${r.routingId}, ${r.rawXml}, ${r.requestedBy}, ${echo}::jsonb,
    ${ts(r.registeredAt)}, ${ts(r.deadlineAt)}, ${r.sendAttempts}::integer, ${ts(r.lastAttemptAt)}, ${ts(r.nextAttemptAt)}, ${r.lastError},
    ${r.outboundId}::bigint, ${ts(r.sentAt)}, ${ts(r.pickedUpAt)}, ${ts(r.closedAt)}, ${r.closeReason}, ${m?.msgId ?? null}::bigint,
    ${m?.rule ?? null}, ${m?.replyDttm ?? null}, ${ts(m?.replyAt ?? null)}, ${m?.detail ?? null})`;
}
