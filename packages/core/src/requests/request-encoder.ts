import { formatBodyTime } from "../codec/body-time.js";
import { RequestInputError } from "./request-input-error.js";
import type { RequestParams } from "./request-record.js";

/** The META of a request we write. */
export interface RequestMeta {
  readonly sndr: string;
  readonly seqn: number;
  /** Airport local `yyyyMMddHHmmss`. */
  readonly dttm: string;
}

const ISO_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const RTYPE = /^[A-Z]{1,4}$/;

/**
 * Refuses parameters that cannot be written (WIRE.md "Outbound requests"): an RQFD range must be
 * two valid ISO local times `yyyy-MM-ddTHH:mm` in 2000–2099 with `from ≤ to`; an RQRD type 1–4
 * upper-case letters (it is the STYP of the request).
 */
export function checkRequestParams(params: RequestParams): void {
  if (params.kind === "RQFD") {
    for (const t of [params.from, params.to]) {
      if (!ISO_LOCAL.test(t)) throw new RequestInputError(`RQFD: ${JSON.stringify(t)} is not yyyy-MM-ddTHH:mm`);
      try {
        formatBodyTime(t);
      } catch (e) {
        throw new RequestInputError(`RQFD: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (params.from > params.to) throw new RequestInputError(`RQFD: from ${params.from} is after to ${params.to}`);
  } else if (!RTYPE.test(params.rtype)) {
    throw new RequestInputError(`RQRD: reference type must be 1–4 upper-case letters, not ${JSON.stringify(params.rtype)}`);
  }
}

const metaXml = (type: string, styp: string, m: RequestMeta): string =>
  `<META><SNDR>${m.sndr}</SNDR><SEQN>${m.seqn}</SEQN><DTTM>${m.dttm}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;

/** `RQFD/NONE` asking for the schedule of `[from, to]` (ISO local, inclusive): body `STDB`, `STDE` as body times. */
export function encodeRqfd(from: string, to: string, meta: RequestMeta): string {
  checkRequestParams({ kind: "RQFD", from, to });
  return `<MSG>${metaXml("RQFD", "NONE", meta)}<RQFD><STDB>${formatBodyTime(from)}</STDB><STDE>${formatBodyTime(to)}</STDE></RQFD></MSG>`;
}

/** `RQRD/<rtype>` asking for the reference data of one type: body `RTYP`. */
export function encodeRqrd(rtype: string, meta: RequestMeta): string {
  checkRequestParams({ kind: "RQRD", rtype });
  return `<MSG>${metaXml("RQRD", rtype, meta)}<RQRD><RTYP>${rtype}</RTYP></RQRD></MSG>`;
}

/**
 * The exact text of a request, written once at registration and never rebuilt: crash recovery
 * finds the outbound row by it. Throws `RequestInputError` for parameters outside their domain.
 */
export function encodeRequest(params: RequestParams, meta: RequestMeta): string {
  return params.kind === "RQFD" ? encodeRqfd(params.from, params.to, meta) : encodeRqrd(params.rtype, meta);
}
