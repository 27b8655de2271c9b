import type { Meta } from "../model/meta.js";
import { isCalendarDate } from "./body-time.js";
import { quote } from "./codec-fault.js";
import type { XmlElement } from "./xml-tree.js";

export type MetaResult = { readonly ok: true; readonly meta: Meta } | { readonly ok: false; readonly reason: string };

const FIELDS = {
  SNDR: /^[A-Z0-9]{1,4}$/,
  SEQN: /^\d{1,15}$/,
  DTTM: /^\d{14}$/,
  // "letters" per WIRE.md: case is kept as sent (it is part of the identity), dispatch is exact.
  TYPE: /^[A-Za-z]{3,4}$/,
  STYP: /^[A-Za-z]{1,4}$/,
} as const;
type Field = keyof typeof FIELDS;

/** `yyyyMMddHHmmss` that names a real calendar date and time of day. */
export function isValidDttm(text: string): boolean {
  if (!FIELDS.DTTM.test(text)) return false;
  const n = (from: number, to: number): number => Number(text.slice(from, to));
  return isCalendarDate(n(0, 4), n(4, 6), n(6, 8)) && n(8, 10) <= 23 && n(10, 12) <= 59 && n(12, 14) <= 59;
}

/**
 * Decodes the `META` of a `MSG` root (WIRE.md "Envelope"): exactly one `META`; each of SNDR, SEQN,
 * DTTM, TYPE, STYP exactly once, in any order, as text (trimmed) within its domain. Unknown META
 * children are ignored. Any failure is a reason for MALFORMED: without a trustworthy envelope the
 * message has no identity.
 */
export function decodeMeta(msg: XmlElement): MetaResult {
  const metas = msg.children.filter((c) => c.name === "META");
  const [meta] = metas;
  if (meta === undefined) return { ok: false, reason: "META missing" };
  if (metas.length > 1) return { ok: false, reason: "more than one META" };

  const values: Partial<Record<Field, string>> = {};
  for (const field of Object.keys(FIELDS) as Field[]) {
    const found = meta.children.filter((c) => c.name === field);
    const [element] = found;
    if (element === undefined) return { ok: false, reason: `META ${field} missing` };
    if (found.length > 1) return { ok: false, reason: `META ${field} occurs more than once` };
    const text = element.text.trim();
    const valid = element.children.length === 0 && (field === "DTTM" ? isValidDttm(text) : FIELDS[field].test(text));
    if (!valid) return { ok: false, reason: `META ${field} ${quote(text)} is invalid` };
    values[field] = text;
  }
  const { SNDR, SEQN, DTTM, TYPE, STYP } = values as Record<Field, string>;
  return { ok: true, meta: { sndr: SNDR, seqn: Number(SEQN), dttm: DTTM, type: TYPE, styp: STYP } };
}
