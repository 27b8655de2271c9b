import { DEFAULT_REQUEST_LAYOUT, type RangeTimeFormat } from "./request-encoder.js";

/** How the request coordinator works; fixed per deployment. */
export interface RequestOptions {
  /** Our SNDR in the META of every request: 1–4 of `[A-Z0-9]`. Default `MSGX`. */
  readonly sndr: string;
  /**
   * Our SEQN counter: the first value, and the last before it wraps (WIRE.md: 000001…999999, then
   * 000000 and on). Default 1–999999.
   */
  readonly seqnFirst: number;
  readonly seqnLast: number;
  /** An open request expires this long after registration, or after it was sent. Default 15 min. */
  readonly timeoutMs: number;
  /**
   * A send attempt holds the request this long: another process (or the restarted one) takes it
   * over only after it. Must exceed the outbound mailbox's worst insert time (the MySQL adapter's
   * acquire + query timeouts). Default 2 min.
   */
  readonly sendLeaseMs: number;
  /** After a failed send attempt, the next one waits this long. Default 5 s. */
  readonly retryMs: number;
  /** `COUTMSGS.ROUTINGID` per request kind (WIRE.md; configurable). */
  readonly routingIds: { readonly RQFD: string; readonly RQRD: string };
  /** How an RQFD writes STDB/STDE (see `RangeTimeFormat`). Default `body`. */
  readonly rangeTimeFormat: RangeTimeFormat;
  /** The root's `xsi:noNamespaceSchemaLocation` in requests. Default `unisysaodbsis.xsd`, the upstream's. */
  readonly schemaLocation: string;
  /** Airport local time = UTC + this: the META DTTM of requests and of replies. Default +480. */
  readonly airportUtcOffsetMinutes: number;
  /**
   * Crash recovery looks our row up among rows inserted since registration minus this, which
   * covers clock skew between us and the mailbox database. Default 1 h.
   */
  readonly lookupSkewMs: number;
}

export const DEFAULT_REQUEST_OPTIONS: RequestOptions = {
  sndr: "MSGX",
  seqnFirst: 1,
  seqnLast: 999_999,
  timeoutMs: 15 * 60_000,
  sendLeaseMs: 120_000,
  retryMs: 5_000,
  routingIds: { RQFD: "VIEWRQFD", RQRD: "VIEWRQRD" },
  rangeTimeFormat: DEFAULT_REQUEST_LAYOUT.rangeTimeFormat,
  schemaLocation: DEFAULT_REQUEST_LAYOUT.schemaLocation,
  airportUtcOffsetMinutes: 480,
  lookupSkewMs: 3_600_000,
};

/** The options over the defaults, checked; throws `RangeError` for a value outside its domain. */
export function requestOptions(options: Partial<RequestOptions> = {}): RequestOptions {
  const o: RequestOptions = { ...DEFAULT_REQUEST_OPTIONS, ...options };
  if (!/^[A-Z0-9]{1,4}$/.test(o.sndr)) throw new RangeError(`requests: sndr must be 1–4 of [A-Z0-9], not ${JSON.stringify(o.sndr)}`);
  if (!Number.isSafeInteger(o.seqnFirst) || !Number.isSafeInteger(o.seqnLast) || o.seqnFirst < 0 || o.seqnLast < o.seqnFirst) {
    throw new RangeError(`requests: seqn range ${o.seqnFirst}–${o.seqnLast} is not a range of non-negative integers`);
  }
  for (const [name, v] of [["timeoutMs", o.timeoutMs], ["sendLeaseMs", o.sendLeaseMs], ["retryMs", o.retryMs], ["lookupSkewMs", o.lookupSkewMs]] as const) {
    if (!Number.isFinite(v) || v <= 0) throw new RangeError(`requests: ${name} must be positive, not ${v}`);
  }
  if (o.routingIds.RQFD === "" || o.routingIds.RQRD === "") throw new RangeError("requests: routing ids must not be empty");
  if (o.rangeTimeFormat !== "body" && o.rangeTimeFormat !== "dttm") throw new RangeError(`requests: rangeTimeFormat must be body or dttm, not ${JSON.stringify(o.rangeTimeFormat)}`);
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(o.schemaLocation)) throw new RangeError(`requests: schemaLocation must be 1–100 of [A-Za-z0-9._-], not ${JSON.stringify(o.schemaLocation)}`);
  return o;
}

/**
 * Our SEQN after `last` (null: none issued yet): `seqnFirst` first, then one up to `seqnLast`,
 * then 0 (WIRE.md: 000001…999999, then 000000 and on), then `seqnFirst` again. A value outside
 * the range (it was reconfigured) starts over at `seqnFirst`. Pure.
 */
export function nextSeqn(last: number | null, range: { readonly seqnFirst: number; readonly seqnLast: number }): number {
  if (last === null || last > range.seqnLast || last < range.seqnFirst) return range.seqnFirst;
  if (last === range.seqnLast) return 0;
  return last + 1;
}
