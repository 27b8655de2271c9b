/**
 * fast-check generators for SIS XML (WIRE.md) and the exact model the codec decodes it to, for
 * property tests of the codec and of the flight processors.
 *
 * The contract: for every `record` drawn from {@link arbFlightRecord} and every style,
 * `decodeMessage(messageXml(meta, flightRecordToXml(record, "FLOP", style)))` yields a block equal
 * (`toStrictEqual`) to `record`: absent stays absent, empty (`null`) stays empty.
 */
import * as fc from "fast-check";
import type { Arbitrary } from "fast-check";
import { formatBodyTime } from "../codec/body-time.js";
import type { CollectionRow, FlightRecord, WireValue } from "../model/flight-record.js";
import {
  INDEXED_SCALARS,
  REQUIRED_SCHD_FIELDS,
  SCALAR_ATTRIBUTES,
  SCALAR_FIELDS,
  TOP_COLLECTION_NAMES,
  childCollectionsOf,
  collectionSpec,
} from "../model/flight-schema.js";
import type { CollectionName, CollectionSpec, ScalarName, ValueKind } from "../model/flight-schema.js";
import type { Meta } from "../model/meta.js";

const pad2 = (n: number): string => String(n).padStart(2, "0");

// Models are compared with toStrictEqual, which tells a null-prototype record from a literal.
const PLAIN_OBJECT = { noNullPrototype: true } as const;
const OPTIONAL_KEYS: { requiredKeys: never[]; noNullPrototype: true } = { requiredKeys: [], noNullPrototype: true };

/** How {@link flightRecordToXml} lays out text that the codec must read the same either way. */
export interface XmlStyle {
  /** Empty elements as `<X/>` (default) or `<X></X>`. */
  readonly selfClosing?: boolean;
  /** Surround values and elements with spaces and newlines, which the codec trims. */
  readonly pad?: boolean;
}

export const arbXmlStyle = (): Arbitrary<XmlStyle> => fc.record({ selfClosing: fc.boolean(), pad: fc.boolean() }, PLAIN_OBJECT);

/** Escapes text for element content or a double-quoted attribute value. */
export const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * ISO local `yyyy-MM-ddTHH:mm` → body time `ddMMMyyHHmm` (years 2000–2099), the inverse of
 * `parseBodyTime`. `monthCase` shows the month in another case, which the codec must accept.
 */
export function encodeBodyTime(isoLocal: string, monthCase: "upper" | "lower" | "title" = "upper"): string {
  const wire = formatBodyTime(isoLocal);
  const month = wire.slice(2, 5);
  const shown = monthCase === "lower" ? month.toLowerCase() : monthCase === "title" ? month.charAt(0) + month.slice(1).toLowerCase() : month;
  return `${wire.slice(0, 2)}${shown}${wire.slice(5)}`;
}

/** A valid ISO local time `yyyy-MM-ddTHH:mm` in 2000–2099 (what the codec yields for a time). */
export const arbIsoLocalTime = (): Arbitrary<string> =>
  fc
    .date({ min: new Date(Date.UTC(2000, 0, 1)), max: new Date(Date.UTC(2099, 11, 31, 23, 59)), noInvalidDate: true })
    .map((d) => `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`);

/** A body time as sent (`wire`, month in any case) with the ISO local time it decodes to. */
export const arbBodyTime = (): Arbitrary<{ readonly wire: string; readonly iso: string }> =>
  fc
    .tuple(arbIsoLocalTime(), fc.constantFrom("upper", "lower", "title") as Arbitrary<"upper" | "lower" | "title">)
    .map(([iso, monthCase]) => ({ wire: encodeBodyTime(iso, monthCase), iso }));

// XML specials, non-ASCII and an astral character; no tab/CR/LF, which XML normalizes.
const TEXT_CHARS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz0123456789 -/.:&<>\"'é中", "😀"];

/** Trimmed, non-empty text (a decoded `text` value). */
export const arbWireText = (): Arbitrary<string> =>
  fc
    .string({ unit: fc.constantFrom(...TEXT_CHARS), minLength: 1, maxLength: 12 })
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** A decoded, normalized value of `kind` (never `null`). */
export function arbValue(kind: ValueKind): Arbitrary<string> {
  // Generated text is at most 12 characters, inside every width.
  if (typeof kind === "object") return "oneOf" in kind ? fc.constantFrom(...kind.oneOf) : arbWireText();
  switch (kind) {
    case "text":
      return arbWireText();
    case "time":
      return arbIsoLocalTime();
    case "int":
      return fc.nat({ max: 99_999 }).map(String);
    case "duration":
      return fc.tuple(fc.nat({ max: 99 }), fc.nat({ max: 59 })).map(([h, m]) => `${pad2(h)}:${pad2(m)}`);
    case "dayOffset":
      return fc.integer({ min: -9, max: 9 }).map((n) => (n < 0 ? String(n) : `+${n}`));
  }
}

/** A decoded value as sent on the wire (the inverse of the codec's normalization). */
export function encodeValue(kind: ValueKind, value: string): string {
  if (kind === "time") return encodeBodyTime(value);
  if (kind === "duration") return value.replace(":", "");
  return value;
}

const arbWireValue = (kind: ValueKind): Arbitrary<WireValue> => fc.option(arbValue(kind), { nil: null, freq: 4 });

/** A valid META; `type`/`styp` fixed when given. */
export const arbMeta = (fixed: { readonly type?: string; readonly styp?: string } = {}): Arbitrary<Meta> =>
  fc.record(
    {
      sndr: fc.stringMatching(/^[A-Z0-9]{1,4}$/),
      seqn: fc.nat({ max: 999_999 }),
      dttm: fc.tuple(arbIsoLocalTime(), fc.nat({ max: 59 })).map(([iso, s]) => `${iso.replace(/[-T:]/g, "")}${pad2(s)}`),
      type: fc.constant(fixed.type ?? "SCHD"),
      styp: fc.constant(fixed.styp ?? "DNLD"),
    },
    PLAIN_OBJECT,
  );

const PLAIN_SCALARS = (Object.keys(SCALAR_FIELDS) as ScalarName[]).filter((n) => !n.includes("@") && SCALAR_ATTRIBUTES[n] === undefined);
const INDEXED = Object.entries(INDEXED_SCALARS) as [string, { indicator: string; value: string; fields: Readonly<Record<string, ScalarName>> }][];
const ATTRIBUTED_SCALARS = Object.keys(SCALAR_ATTRIBUTES) as ScalarName[];
const kindOf = (name: string): ValueKind => SCALAR_FIELDS[name as ScalarName];

/** Scalars of an element with attributes; an empty element without attributes clears them all. */
function arbAttributedScalar(name: ScalarName): Arbitrary<Partial<Record<string, WireValue>>> {
  const attributes = SCALAR_ATTRIBUTES[name] ?? [];
  const fields = Object.fromEntries(attributes.map((a) => [`${name}@${a}`, arbWireValue(kindOf(`${name}@${a}`))]));
  const present = fc
    .tuple(arbWireValue(kindOf(name)), fc.record(fields, OPTIONAL_KEYS))
    .map(([value, attrs]): Partial<Record<string, WireValue>> => {
      if (value === null && Object.keys(attrs).length === 0) {
        return Object.fromEntries([[name, null], ...attributes.map((a) => [`${name}@${a}`, null])]);
      }
      return { [name]: value, ...attrs };
    });
  return fc.oneof(fc.constant({}), present);
}

/** The name a row's key is also stored under in its values (`@CODE`, `SRTC`), if any. */
function keyField(spec: CollectionSpec): string | undefined {
  if (typeof spec.key !== "string") return spec.key.element;
  return spec.attributes !== undefined && Object.hasOwn(spec.attributes, spec.key) ? `@${spec.key}` : undefined;
}

/** The field a nested row stores its parent's key under (VIPT's VPCD), if any. */
function parentField(spec: CollectionSpec): string | undefined {
  if (spec.parent === undefined) return undefined;
  const parentKey = collectionSpec(spec.parent as CollectionName).key;
  return typeof parentKey === "string" ? undefined : parentKey.element;
}

/** A row as generated before it is placed: its own key and its values (no parent key yet). */
interface RowDraft {
  readonly key: string;
  readonly values: Readonly<Record<string, WireValue>>;
}

/** Row codes (DELY, SRVT, VIPF, VIPT keys): a fixed pool, cheaper to draw than generated text. */
const CODES = ["81", "93", "A", "B7", "CAR", "LNG", "MEAL", "V1", "V2", "WCHR", "X9", "ZZZ"] as const;

/** A row key: a sequence number, or a code for the collections keyed by one. */
const arbKey = (spec: CollectionSpec): Arbitrary<string> =>
  typeof spec.key === "string" && keyField(spec) === undefined ? fc.integer({ min: 1, max: 99 }).map(String) : fc.constantFrom(...CODES);

function arbRowDraft(spec: CollectionSpec): Arbitrary<RowDraft> {
  const own = keyField(spec);
  const skip = new Set([own, parentField(spec)]);
  const fields = Object.fromEntries(Object.entries(spec.fields).filter(([f]) => !skip.has(f)).map(([f, k]) => [f, arbWireValue(k)]));
  const attributes = Object.fromEntries(
    Object.entries(spec.attributes ?? {})
      .filter(([a]) => !skip.has(`@${a}`))
      .map(([a, k]) => [`@${a}`, arbWireValue(k)]),
  );
  const text = spec.text === undefined ? fc.constant({}) : arbWireValue(spec.text).map((t) => ({ "#text": t }));
  return fc
    .tuple(arbKey(spec), fc.record(fields, OPTIONAL_KEYS), fc.record(attributes, OPTIONAL_KEYS), text)
    .map(([key, f, a, t]) => ({ key, values: { ...(own === undefined ? {} : { [own]: key }), ...f, ...a, ...t } as Record<string, WireValue> }));
}

/** A nested row placed in its parent row: keyed `<parent key>/<own key>`, the parent's key as a field. */
function placed(spec: CollectionSpec, draft: RowDraft, parentKey: string): CollectionRow {
  const inherited = parentField(spec);
  return { key: `${parentKey}/${draft.key}`, values: inherited === undefined ? draft.values : { [inherited]: parentKey, ...draft.values } };
}

/**
 * Rows of one collection (1–3, distinct keys) or `[]` (cleared), with the collections nested in
 * its rows: `{ VIPF: rows, VIPT: rows of every VIPF row }`.
 */
export function arbCollectionWithChildren(name: CollectionName): Arbitrary<Partial<Record<CollectionName, readonly CollectionRow[]>>> {
  const spec = collectionSpec(name);
  const children = childCollectionsOf(name);
  const cleared = Object.fromEntries([name, ...children].map((n) => [n, []]));
  const parent = fc.tuple(
    arbRowDraft(spec),
    fc.tuple(...children.map((child) => fc.uniqueArray(arbRowDraft(collectionSpec(child)), { selector: (d) => d.key, maxLength: 3 }))),
  );
  const stated = fc.uniqueArray(parent, { selector: ([d]) => d.key, minLength: 1, maxLength: 3 }).map((parents) => {
    const out: Record<string, CollectionRow[]> = { [name]: parents.map(([row]) => row) };
    children.forEach((child, i) => (out[child] = parents.flatMap(([row, nested]) => (nested[i] ?? []).map((d) => placed(collectionSpec(child), d, row.key)))));
    return out as Partial<Record<CollectionName, readonly CollectionRow[]>>;
  });
  return fc.oneof({ arbitrary: fc.constant(cleared), weight: 1 }, { arbitrary: stated, weight: 4 });
}

/** Rows of one collection (1–3, distinct keys) or `[]` (cleared); nested collections left out. */
export function arbCollection(name: CollectionName): Arbitrary<readonly CollectionRow[]> {
  return arbCollectionWithChildren(name).map((c) => c[name] ?? []);
}

/** An indexed scalar's fields (`PORT@O`, `PORT@C`), a subset each a value or `null`, or nothing. */
function arbIndexedScalar(fields: Readonly<Record<string, ScalarName>>): Arbitrary<Partial<Record<string, WireValue>>> {
  const names = Object.values(fields);
  return fc.record(Object.fromEntries(names.map((n) => [n, arbWireValue(kindOf(n))])), OPTIONAL_KEYS);
}

/**
 * A flight record as the codec decodes it: a random subset of scalars, collections and FFID, each
 * either absent, `null` (empty element) or a valid value. With `schd`, the fields required in a
 * SCHD record (REQUIRED_SCHD_FIELDS) are always present and non-null.
 */
export function arbFlightRecord(options: { readonly schd?: boolean } = {}): Arbitrary<FlightRecord> {
  const required = new Set<string>(options.schd ? REQUIRED_SCHD_FIELDS : []);
  const plain = fc.record(
    Object.fromEntries(PLAIN_SCALARS.map((n) => [n, required.has(n) ? arbValue(kindOf(n)) : arbWireValue(kindOf(n))])),
    { ...PLAIN_OBJECT, requiredKeys: [...required] },
  );
  const attributed = fc.tuple(...ATTRIBUTED_SCALARS.map(arbAttributedScalar), ...INDEXED.map(([, spec]) => arbIndexedScalar(spec.fields)));
  const collections = fc
    .tuple(...TOP_COLLECTION_NAMES.map((n) => fc.option(arbCollectionWithChildren(n), { nil: undefined })))
    .map((parts) => Object.assign({}, ...parts.filter((p) => p !== undefined)) as Record<string, readonly CollectionRow[]>);
  const flid = fc.stringMatching(/^\d{1,18}$/);
  const ffid = fc.option(fc.option(arbWireText(), { nil: null }), { nil: undefined });
  return fc
    .record({ flid, ffid, plain, attributed, collections }, PLAIN_OBJECT)
    .map(({ flid, ffid, plain: p, attributed: a, collections: c }) => {
      const scalars = Object.assign({}, p, ...a) as FlightRecord["scalars"];
      const base = { flid, scalars, collections: c as FlightRecord["collections"] };
      return ffid === undefined ? base : { ...base, ffid };
    });
}

function leaf(name: string, value: WireValue | undefined, style: XmlStyle, attributes = ""): string {
  const text = value === null || value === undefined ? "" : escapeXml(value);
  const inner = style.pad ? ` \n ${text} ` : text;
  if (inner === "" && style.selfClosing !== false) return `<${name}${attributes}/>`;
  return `<${name}${attributes}>${inner}</${name}>`;
}

function attr(name: string, value: WireValue, style: XmlStyle): string {
  const text = value === null ? "" : escapeXml(value);
  return ` ${name}="${style.pad && text !== "" ? ` ${text} ` : text}"`;
}

function rowToXml(name: CollectionName, row: CollectionRow, record: FlightRecord, style: XmlStyle): string {
  const spec = collectionSpec(name);
  const own = keyField(spec);
  const inherited = parentField(spec);
  let attrs = typeof spec.key === "string" ? attr(spec.key, row.key.slice(row.key.lastIndexOf("/") + 1), style) : "";
  let children = "";
  for (const [field, value] of Object.entries(row.values)) {
    if (field === inherited || (field === own && field.startsWith("@"))) continue;
    const kind = field.startsWith("@") ? spec.attributes?.[field.slice(1)] : spec.fields[field];
    const wire = value === null || kind === undefined ? value : encodeValue(kind, value);
    if (field.startsWith("@")) attrs += attr(field.slice(1), wire, style);
    else if (field !== "#text") children += leaf(field, wire, style);
  }
  for (const child of childCollectionsOf(name)) {
    const nested = (record.collections[child] ?? []).filter((r) => r.key.startsWith(`${row.key}/`));
    children += nested.map((r) => rowToXml(child, r, record, style)).join("");
  }
  const text = row.values["#text"];
  return children === "" ? leaf(name, text, style, attrs) : `<${name}${attrs}>${children}</${name}>`;
}

/**
 * Writes a record as a `FLTR` (SCHD) or `FLOP` block. Scalars with attributes are one element;
 * a model with attributes but no element value is written with empty element text, and a `null`
 * element value without attributes as the clearing empty element.
 */
export function flightRecordToXml(record: FlightRecord, wrapper: "FLTR" | "FLOP", style: XmlStyle = {}): string {
  const parts = [leaf("FLID", record.flid, style)];
  if (record.ffid !== undefined) parts.push(leaf("FFID", record.ffid, style));
  const scalars = record.scalars as Partial<Record<string, WireValue>>;
  for (const name of [...PLAIN_SCALARS, ...ATTRIBUTED_SCALARS]) {
    const attributes = (SCALAR_ATTRIBUTES[name] ?? []).filter((a) => `${name}@${a}` in scalars);
    if (!(name in scalars) && attributes.length === 0) continue;
    const value = scalars[name];
    const cleared = value === null && attributes.every((a) => scalars[`${name}@${a}`] === null) && attributes.length === (SCALAR_ATTRIBUTES[name] ?? []).length;
    const attrs = cleared ? "" : attributes.map((a) => attr(a, scalars[`${name}@${a}`] ?? null, style)).join("");
    parts.push(leaf(name, value === null || value === undefined ? value : encodeValue(kindOf(name), value), style, attrs));
  }
  for (const [name, spec] of INDEXED) {
    const stated = Object.entries(spec.fields).filter(([, field]) => field in scalars);
    for (const [indicator, field] of stated) {
      const value = scalars[field];
      const wire = value === null || value === undefined ? null : encodeValue(kindOf(field), value);
      parts.push(`<${name}>${leaf(spec.indicator, indicator, style)}${leaf(spec.value, wire, style)}</${name}>`);
    }
  }
  for (const [name, rows] of Object.entries(record.collections) as [CollectionName, readonly CollectionRow[]][]) {
    if (collectionSpec(name).parent !== undefined) continue;
    parts.push(rows.length === 0 ? leaf(name, null, style) : rows.map((r) => rowToXml(name, r, record, style)).join(""));
  }
  const sep = style.pad ? "\n  " : "";
  return `<${wrapper}>${sep}${parts.join(sep)}${sep}</${wrapper}>`;
}

/** A `SCHD` body with its records and a `RECS` count (the number of records unless given). */
export const schdXml = (records: readonly FlightRecord[], recs: number = records.length, style: XmlStyle = {}): string =>
  `<SCHD><RECS>${recs}</RECS>${records.map((r) => flightRecordToXml(r, "FLTR", style)).join("")}</SCHD>`;

/** A whole message: `MSG` with the META fields (escaped) and `body` as given (raw XML). */
export const messageXml = (meta: Meta, body: string): string =>
  `<MSG><META><SNDR>${escapeXml(meta.sndr)}</SNDR><SEQN>${meta.seqn}</SEQN><DTTM>${escapeXml(meta.dttm)}</DTTM>` +
  `<TYPE>${escapeXml(meta.type)}</TYPE><STYP>${escapeXml(meta.styp)}</STYP></META>${body}</MSG>`;
