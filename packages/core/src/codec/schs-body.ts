import type { CollectionRow, WireValue } from "../model/flight-record.js";
import type { MsgKind } from "../model/msg-kind.js";
import { SEASONAL_FIELDS, type SeasonalField, type SeasonalFlight, type SeasonalSchedule } from "../model/seasonal-schedule.js";
import { parseBodyDate, parseBodyTime } from "./body-time.js";
import { protocolFault, quote } from "./codec-fault.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { attributeKey, decodeKeyedRows } from "./collection-decoder.js";
import { decodeRecs } from "./schd-body.js";
import { mapInSteps, type Stepped } from "./stepped.js";
import { decodeWireValue } from "./value-decoder.js";
import { childrenNamed } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

const CLOCK = /^([01]\d|2[0-3])([0-5]\d)$/;

/** `HHMM` local time of day → `HH:MM`; null when not a time of day. */
const parseClock = (text: string): string | null => {
  const m = CLOCK.exec(text);
  return m ? `${m[1]}:${m[2]}` : null;
};

/** `DYOP`: seven characters, Monday..Sunday, each `0` or the day's own digit. */
const isDays = (text: string): boolean => text.length === 7 && [...text].every((c, i) => c === "0" || c === String(i + 1));

type SeasonalKind = (typeof SEASONAL_FIELDS)[SeasonalField] | "clockOrTime" | "dayOffset";

/** One SCHS value: trimmed; empty → null; outside its kind → PROTOCOL naming `where`. */
function seasonalValue(kind: SeasonalKind, raw: string, where: string): WireValue {
  const text = raw.trim();
  if (text === "") return null;
  const checked = (value: string | null, expected: string): string => {
    if (value === null) throw protocolFault(`${where} ${quote(text)} is not ${expected}`);
    return value;
  };
  switch (kind) {
    case "date":
      return checked(parseBodyDate(text), "a date ddMMMyy");
    case "clock":
      return checked(parseClock(text), "a time of day HHMM");
    case "clockOrTime":
      return checked(parseClock(text) ?? parseBodyTime(text), "a time of day HHMM or a body time ddMMMyyHHmm");
    case "days":
      return checked(isDays(text) ? text : null, "seven days Mon..Sun, each 0 or its digit 1..7");
    default:
      return decodeWireValue(kind, text, where, false);
  }
}

const ROUTE_FIELDS = {
  ROUT: { APCD: "text", SCAT: "clock", SCDT: "clock" },
  ERUT: { APCD: "text", SCAT: "clockOrTime", SCDT: "clockOrTime", SADC: "dayOffset", SDDC: "dayOffset" },
} as const satisfies Record<string, Record<string, SeasonalKind>>;

/**
 * The rows of a route collection, keyed by their `RTNO` attribute. Only empty elements: `[]`.
 * PROTOCOL when empty elements are mixed with rows, a row has no RTNO or repeats one, or a value
 * is outside its kind. Unknown children of a row are ignored.
 */
function decodeRoutes(name: keyof typeof ROUTE_FIELDS, elements: readonly XmlElement[], where: string): CollectionRow[] {
  const fields: Readonly<Record<string, SeasonalKind>> = ROUTE_FIELDS[name];
  return decodeKeyedRows(name, elements, where, (element) => attributeKey(name, "RTNO", element, where), (element, key) => {
    const at = `${where}: ${name}[${key}]`;
    const children = groupChildren(element, (n) => Object.hasOwn(fields, n), at);
    const values: Record<string, WireValue> = {};
    for (const [field, kind] of Object.entries(fields)) {
      const child = children.get(field)?.[0];
      if (child !== undefined) values[field] = seasonalValue(kind, leafText(child, at), `${at} ${field}`);
    }
    return { key, values };
  });
}

function decodeSeasonalFlight(record: XmlElement, index: number): SeasonalFlight {
  const where = `SCHS FLTR #${index + 1}`;
  const children = groupChildren(record, (n) => Object.hasOwn(SEASONAL_FIELDS, n), where);
  const fields: Partial<Record<SeasonalField, WireValue>> = {};
  for (const [field, kind] of Object.entries(SEASONAL_FIELDS) as [SeasonalField, SeasonalKind][]) {
    const child = children.get(field)?.[0];
    if (child !== undefined) fields[field] = seasonalValue(kind, leafText(child, where), `${where}: ${field}`);
  }
  const rout = children.get("ROUT");
  const erut = children.get("ERUT");
  return {
    fields,
    ...(rout === undefined ? {} : { rout: decodeRoutes("ROUT", rout, where) }),
    ...(erut === undefined ? {} : { erut: decodeRoutes("ERUT", erut, where) }),
  };
}

/** One header element of the SCHS body: absent, empty (null) or its value. PROTOCOL when repeated. */
function header(body: XmlElement, name: string, kind: SeasonalKind): WireValue | undefined {
  const found = childrenNamed(body, name);
  const [only] = found;
  if (only === undefined) return undefined;
  if (found.length > 1) throw protocolFault(`SCHS: ${name} occurs more than once`);
  return seasonalValue(kind, leafText(only, "SCHS"), `SCHS: ${name}`);
}

/**
 * `SCHS/<STYP>` (DNLD or RESP upstream): the seasonal schedule `SCHS{SNAM, APCD, SDAT, EDAT,
 * RECS, FLTR*}` (WIRE.md "Seasonal schedule"), yielding after every `every` records. Decodes
 * values only: PROTOCOL when the body is missing or repeated, RECS is not an integer, a header
 * repeats, or a value is outside its kind. Which fields a record requires, whether RECS matches
 * and what a season replaces are a seasonal processor's rules (there is none yet: SCHS is
 * ignored by default).
 */
export function* decodeSchs(msg: XmlElement, styp: string, every: number): Stepped<MsgKind> {
  const bodies = childrenNamed(msg, "SCHS");
  const [body] = bodies;
  if (body === undefined) throw protocolFault("SCHS body missing");
  if (bodies.length > 1) throw protocolFault("more than one SCHS body");
  const schedule: SeasonalSchedule = {
    ...optional("snam", header(body, "SNAM", "text")),
    ...optional("apcd", header(body, "APCD", "text")),
    ...optional("sdat", header(body, "SDAT", "date")),
    ...optional("edat", header(body, "EDAT", "date")),
    recs: decodeRecs(body),
    flights: yield* mapInSteps(childrenNamed(body, "FLTR"), decodeSeasonalFlight, every),
  };
  return { kind: "seasonal", styp, body: schedule };
}

const optional = <K extends string>(key: K, value: WireValue | undefined): Partial<Record<K, WireValue>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, WireValue>);
