import type { OpenRequest } from "../requests/open-request.js";
import { matchReply } from "../requests/reply-match.js";

export { dttmToEpochMs } from "../requests/dttm-instant.js";

/**
 * The open schedule request (`RQFD`) a `SCHD/RESP` answers, by the declared fallback of SPEC
 * §2.6 (replies echo nothing): an open RQFD sent at or before the reply's DTTM instant, the most
 * recently sent one when there are several (there should be one: one open
 * request per type). See `matchReply` for the rules and the audit they give.
 */
export function matchScheduleRequest(
  openRequests: readonly OpenRequest[],
  replyDttm: string,
  airportUtcOffsetMinutes: number,
): OpenRequest | undefined {
  return matchReply(openRequests, { requestType: "RQFD", dttm: replyDttm }, { airportUtcOffsetMinutes })?.request;
}

/**
 * Whether an ISO local `yyyy-MM-ddTHH:mm` lies inside a request's inclusive `[from, to]`; an
 * open side does not bound. ISO local texts of one length order as their times do.
 */
export function withinRequest(request: OpenRequest, isoLocal: string): boolean {
  return (request.from === undefined || isoLocal >= request.from) && (request.to === undefined || isoLocal <= request.to);
}
