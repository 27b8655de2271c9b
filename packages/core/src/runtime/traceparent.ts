/** The parts of a W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/). */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero: the span the next one is a child of. */
  readonly spanId: string;
  /** Two hex digits; bit 0 is `sampled`. */
  readonly flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * Reads a `traceparent` as W3C Trace Context level 1 does: lowercase hex only, version `ff`
 * refused, all-zero trace or span ids refused, version `00` exactly 55 characters; a later version
 * may carry more fields after a dash, which are ignored. Anything else is null: a caller starts a
 * new trace instead, and an invalid value is never stored or forwarded.
 */
export function parseTraceparent(value: string | null | undefined): TraceContext | null {
  if (typeof value !== "string") return null;
  const m = TRACEPARENT.exec(value.trim());
  if (m === null) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === "ff" || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  if (version === "00" && rest !== undefined) return null;
  return { traceId, spanId, flags };
}

/** The version-00 `traceparent` of a context. */
export function formatTraceparent(c: TraceContext): string {
  return `00-${c.traceId}-${c.spanId}-${c.flags}`;
}

/** The `traceparent` as msgx stores and sends it (version 00), or null when it is not valid. */
export function normalTraceparent(value: string | null | undefined): string | null {
  const c = parseTraceparent(value);
  return c === null ? null : formatTraceparent(c);
}
