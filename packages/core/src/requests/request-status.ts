import { states, type ValueOf } from "../base/states.js";

/**
 * The lifecycle of one upstream request (`REQ_TRACK`, SPEC §2.6, seed 000 §4.2):
 *
 * ```text
 * REGISTERED ──sent──▶ SENT ──picked-up──▶ WAITING ──answered──▶ DONE
 *      │                 │ └────────────answered──────────────▶ DONE
 *      └──expired────────┴──────────────────┴──expired────────▶ EXPIRED
 * ```
 *
 * Every change goes through `evolveRequest` (request-machine.ts); DONE and EXPIRED are final.
 *
 * - `REGISTERED`: entered by `registered`: the request is recorded with its final wire text (SNDR,
 *   SEQN, DTTM fixed), and any older open request of the same type was expired in the same
 *   transaction. Does: the coordinator writes it to `COUTMSGS`. A first attempt inserts; every
 *   later attempt first looks the row up by its exact text, so an insert whose confirmation was
 *   lost (crash, `COMMIT_UNKNOWN`) is found, never sent twice. An attempt holds a lease (`retryMs`)
 *   so two processes never send the same request at once. Leaves by `sent` (the insert, or the
 *   lookup, confirmed the row) or `expired` (deadline passed while unsent, or superseded). A reply
 *   can never match it: it was not confirmed as sent.
 * - `SENT`: entered by `sent`: the `COUTMSGS` row is committed and its id recorded (`outboundId`,
 *   `sentAt`). Does: waits for the upstream to pick the row up (`DATE_SENT`) and for the reply;
 *   the reply may come first. Leaves by `picked-up`, `answered` or `expired`.
 * - `WAITING`: entered by `picked-up`: the upstream's sender stamped `DATE_SENT` on our row. Does:
 *   waits for the reply only. Leaves by `answered` or `expired`.
 * - `DONE`: entered by `answered`: a reply matched it (the rule and its facts are recorded:
 *   `match`) and was applied in the same pipeline transaction. Final: nothing changes it again.
 * - `EXPIRED`: entered by `expired`: its deadline passed (`timeout`) or a newer request of the same
 *   type replaced it (`superseded`). Final: a late reply matches nothing (SKIPPED `no-request`).
 */
export const RequestStatus = states("REGISTERED", "SENT", "WAITING", "DONE", "EXPIRED");
export type RequestStatus = ValueOf<typeof RequestStatus>;

/** Open: not yet DONE or EXPIRED. At most one open request per request type. */
export const OPEN_REQUEST_STATUSES: readonly RequestStatus[] = [RequestStatus.REGISTERED, RequestStatus.SENT, RequestStatus.WAITING];

/** Answerable: confirmed as sent and still open; only these are offered to reply matching. */
export const ANSWERABLE_REQUEST_STATUSES: readonly RequestStatus[] = [RequestStatus.SENT, RequestStatus.WAITING];

export const isOpenRequest = (status: RequestStatus): boolean => OPEN_REQUEST_STATUSES.includes(status);
export const isAnswerableRequest = (status: RequestStatus): boolean => ANSWERABLE_REQUEST_STATUSES.includes(status);
