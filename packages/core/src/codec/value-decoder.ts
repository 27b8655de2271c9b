import type { WireValue } from "../model/flight-record.js";
import type { ValueKind } from "../model/flight-schema.js";
import { parseBodyTime, parseDuration } from "./body-time.js";
import { protocolFault, quote } from "./codec-fault.js";

const DIGITS = /^\d+$/;
const DAY_OFFSET = /^([+-]?)(\d{1,4})$/;

/** `+n` / `-n` (an unsigned `n` is `+n`), canonical: sign kept, leading zeros dropped, `-0` is `+0`. */
function dayOffset(text: string): string | null {
  const m = DAY_OFFSET.exec(text);
  if (!m) return null;
  const n = Number(m[2]);
  return `${m[1] === "-" && n !== 0 ? "-" : "+"}${n}`;
}

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** The characters (code points, as a width counts them) of a text longer than `max`, else undefined. */
function charsOver(text: string, max: number): number | undefined {
  // Each code point is one or two UTF-16 units: a text of at most `max` units cannot be over.
  if (text.length <= max) return undefined;
  const chars = text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
  return chars > max ? chars : undefined;
}

function expected(kind: ValueKind): string {
  if (typeof kind === "object") return "oneOf" in kind ? `one of ${kind.oneOf.join("|")}` : `text of at most ${kind.maxChars} characters`;
  switch (kind) {
    case "time":
      return "a body time ddMMMyyHHmm";
    case "int":
      return "a non-negative integer";
    case "duration":
      return "a duration HHMM";
    case "dayOffset":
      return "a signed day offset +n/-n";
    case "text":
      return "text";
  }
}

function normalize(kind: ValueKind, text: string, numericTolerance: boolean): string | null {
  if (typeof kind === "object") return "oneOf" in kind ? (kind.oneOf.includes(text) ? text : null) : text;
  switch (kind) {
    case "text":
      return text;
    case "time":
      return parseBodyTime(text, numericTolerance);
    case "int":
      return DIGITS.test(text) ? text.replace(/^0+(?=\d)/, "") : null;
    case "duration":
      return parseDuration(text);
    case "dayOffset":
      return dayOffset(text);
  }
}

/**
 * Decodes one wire text by its value kind (see `ValueKind` in flight-schema).
 *
 * Whitespace around the text is trimmed; what is left empty is `null` (the value is cleared).
 * Otherwise the normalized value, or a PROTOCOL {@link CodecFault} naming `where` (e.g.
 * `FLID 900101: ESTT`) when the text is outside the kind's domain or over its width.
 */
export function decodeWireValue(kind: ValueKind, raw: string, where: string, numericTolerance: boolean): WireValue {
  const text = raw.trim();
  if (text === "") return null;
  if (typeof kind === "object" && "maxChars" in kind) {
    const chars = charsOver(text, kind.maxChars);
    // The value is not quoted: it may be megabytes long.
    if (chars !== undefined) throw protocolFault(`${where} is ${chars} characters, over its width of ${kind.maxChars}`);
  }
  const value = normalize(kind, text, numericTolerance);
  if (value === null) throw protocolFault(`${where} ${quote(text)} is not ${expected(kind)}`);
  return value;
}
