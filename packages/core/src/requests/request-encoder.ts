import { formatBodyTime } from "../codec/body-time.js";
import { RequestInputError } from "./request-input-error.js";
import { formatSeqn, type RequestParams } from "./request-record.js";

/** The META of a request we write. */
export interface RequestMeta {
  readonly sndr: string;
  readonly seqn: number;
  /** Airport local `yyyyMMddHHmmss`. */
  readonly dttm: string;
}

/**
 * How STDB/STDE of an RQFD are written. Upstream fixes no format (its client passes on what the
 * operator typed), so it is a setting: `body` (default) the body time `ddMMMyyHHmm` the upstream
 * itself sends, `dttm` the META format `yyyyMMddHHmmss`.
 */
export type RangeTimeFormat = "body" | "dttm";

/** The envelope of the requests we write, as the upstream's own client writes it (WIRE.md "Outbound requests"). */
export interface RequestLayout {
  readonly rangeTimeFormat: RangeTimeFormat;
  /** The root's `xsi:noNamespaceSchemaLocation`: the upstream schema file. */
  readonly schemaLocation: string;
}

export const DEFAULT_REQUEST_LAYOUT: RequestLayout = { rangeTimeFormat: "body", schemaLocation: "unisysaodbsis.xsd" };

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

const XSI = "http://www.w3.org/2001/XMLSchema-instance";
const SCHEMA_LOCATION = /^[A-Za-z0-9._-]{1,100}$/;

/** The XML declaration and the root with its xsi attributes, then META, `body` and the root's end. */
function envelope(type: string, styp: string, m: RequestMeta, body: string, layout: RequestLayout): string {
  if (!SCHEMA_LOCATION.test(layout.schemaLocation)) throw new RangeError(`requests: schemaLocation must be 1–100 of [A-Za-z0-9._-], not ${JSON.stringify(layout.schemaLocation)}`);
  const meta = `<META><SNDR>${m.sndr}</SNDR><SEQN>${formatSeqn(m.seqn)}</SEQN><DTTM>${m.dttm}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<MSG xmlns:xsi="${XSI}" xsi:noNamespaceSchemaLocation="${layout.schemaLocation}">${meta}${body}</MSG>`;
}

/** An ISO local `yyyy-MM-ddTHH:mm` as the range format asks. */
function formatRangeTime(isoLocal: string, format: RangeTimeFormat): string {
  if (format === "body") return formatBodyTime(isoLocal);
  formatBodyTime(isoLocal); // the same domain check (2000–2099, a real date)
  return `${isoLocal.replace(/[-T:]/g, "")}00`;
}

/** `RQFD/NONE` asking for the schedule of `[from, to]` (ISO local, inclusive): body `STDB`, `STDE` in the layout's range format. */
export function encodeRqfd(from: string, to: string, meta: RequestMeta, layout: RequestLayout = DEFAULT_REQUEST_LAYOUT): string {
  checkRequestParams({ kind: "RQFD", from, to });
  const f = layout.rangeTimeFormat;
  return envelope("RQFD", "NONE", meta, `<RQFD><STDB>${formatRangeTime(from, f)}</STDB><STDE>${formatRangeTime(to, f)}</STDE></RQFD>`, layout);
}

/** `RQRD/<rtype>` asking for the reference data of one type: body `RTYP`. */
export function encodeRqrd(rtype: string, meta: RequestMeta, layout: RequestLayout = DEFAULT_REQUEST_LAYOUT): string {
  checkRequestParams({ kind: "RQRD", rtype });
  return envelope("RQRD", rtype, meta, `<RQRD><RTYP>${rtype}</RTYP></RQRD>`, layout);
}

/**
 * The exact text of a request, written once at registration and never rebuilt: crash recovery
 * finds the outbound row by it. Throws `RequestInputError` for parameters outside their domain.
 */
export function encodeRequest(params: RequestParams, meta: RequestMeta, layout: RequestLayout = DEFAULT_REQUEST_LAYOUT): string {
  return params.kind === "RQFD" ? encodeRqfd(params.from, params.to, meta, layout) : encodeRqrd(params.rtype, meta, layout);
}
