import type { OpenRequest } from "../processing/open-request.js";

const DTTM = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/**
 * The instant (epoch ms) of an airport-local `yyyyMMddHHmmss` (META DTTM) at a fixed UTC offset
 * in minutes (+480 for China). Undefined when the text is not of that form.
 */
export function dttmToEpochMs(dttm: string, utcOffsetMinutes: number): number | undefined {
  const m = DTTM.exec(dttm);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const local = new Date(0);
  local.setUTCFullYear(y, mo - 1, d);
  local.setUTCHours(h, mi, s, 0);
  return local.getTime() - utcOffsetMinutes * 60_000;
}

/**
 * The open schedule request (`RQFD`) a `SCHD/RESP` answers, by the declared fallback of SPEC
 * §2.6 (replies echo nothing): an open RQFD sent at or before the reply's DTTM, the most recently
 * sent one when there are several (there should be one: one open request per type).
 */
export function matchScheduleRequest(
  openRequests: readonly OpenRequest[],
  replyDttm: string,
  airportUtcOffsetMinutes: number,
): OpenRequest | undefined {
  const at = dttmToEpochMs(replyDttm, airportUtcOffsetMinutes);
  if (at === undefined) return undefined;
  let best: OpenRequest | undefined;
  for (const r of openRequests) {
    if (r.kind !== "RQFD" || r.sentAt > at) continue;
    if (best === undefined || r.sentAt > best.sentAt) best = r;
  }
  return best;
}

/**
 * Whether an ISO local `yyyy-MM-ddTHH:mm` lies inside a request's inclusive `[from, to]`; an
 * open side does not bound. ISO local texts of one length order as their times do.
 */
export function withinRequest(request: OpenRequest, isoLocal: string): boolean {
  return (request.from === undefined || isoLocal >= request.from) && (request.to === undefined || isoLocal <= request.to);
}
