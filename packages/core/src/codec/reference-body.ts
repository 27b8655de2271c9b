import type { MsgKind, RefRecord } from "../model/msg-kind.js";
import { REFERENCE_SCHEMAS, type RefFieldKind, type RefRow, type RefTypeSchema, type RefValue } from "../model/reference-schema.js";
import { CodecFault, codecFault, protocolFault, quote } from "./codec-fault.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeRecs } from "./schd-body.js";
import { mapInSteps, type Stepped } from "./stepped.js";
import { childrenNamed, type XmlElement } from "./xml-tree.js";

/** Subtypes that carry reference data (WIRE.md "Kinds"). */
export const REFERENCE_SUBTYPES: readonly string[] = ["RESP", "DNLD", "ADD", "UPD", "DEL"];

/** Trimmed text; `null` when only whitespace. */
const textOf = (e: XmlElement, where: string): string | null => {
  const t = leafText(e, where).trim();
  return t === "" ? null : t;
};

const attributeOf = (e: XmlElement, name: string): string | null => {
  const t = e.attributes.get(name)?.trim() ?? "";
  return t === "" ? null : t;
};

const hasValue = (row: RefRow): boolean => Object.values(row).some((v) => v !== null);

/** A row of a structured repeat: each child element by name (text, `null` when empty). */
function rowOf(e: XmlElement, where: string): RefRow {
  const row: Record<string, string | null> = {};
  for (const [name, [child]] of groupChildren(e, () => true, `${where} ${e.name}`)) {
    if (child !== undefined) setOwn(row, name, textOf(child, where));
  }
  return row;
}

/** `ABBR*` by `@CODE` (ours: one object, not a list): an empty repeat says nothing. */
function abbreviationsOf(elements: readonly XmlElement[], where: string): RefRow {
  const byCode: Record<string, string | null> = {};
  for (const e of elements) {
    const value = textOf(e, where);
    if (value === null) continue;
    const code = attributeOf(e, "CODE");
    if (code === null) throw protocolFault(`${where}: ABBR ${quote(value)} has no CODE`);
    if (Object.hasOwn(byCode, code)) throw protocolFault(`${where}: ABBR CODE ${quote(code)} occurs more than once`);
    setOwn(byCode, code, value);
  }
  return byCode;
}

function decodeField(kind: RefFieldKind, elements: readonly XmlElement[], where: string): RefValue {
  const [first] = elements;
  if (first === undefined) return null;
  const single = (): XmlElement => {
    if (elements.length > 1) throw protocolFault(`${where}: ${first.name} occurs more than once`);
    return first;
  };
  switch (kind) {
    case "text":
      return textOf(single(), where);
    case "flag": {
      const t = textOf(single(), where);
      return t === null ? null : t.toUpperCase() === "Y";
    }
    case "list":
      return elements.flatMap((e) => textOf(e, where) ?? []);
    case "terminals":
      return elements
        .map((e): RefRow => ({ terminal: textOf(e, where), mvin: attributeOf(e, "MVIN"), flin: attributeOf(e, "FLIN") }))
        .filter(hasValue);
    case "rows":
      return elements.map((e) => rowOf(e, where)).filter(hasValue);
    case "abbreviations":
      return abbreviationsOf(elements, where);
  }
}

/** All character data of `e` and its descendants, in document order, trimmed; `null` when none. */
const flatText = (e: XmlElement): string | null => {
  const all = (x: XmlElement): string => x.text + x.children.map(all).join("");
  const t = all(e).trim();
  return t === "" ? null : t;
};

/** An unknown element holding elements: a row of its children, or its text when they nest or repeat. */
function unknownRow(e: XmlElement, where: string): RefRow | string | null {
  try {
    return rowOf(e, where);
  } catch (fault) {
    if (fault instanceof CodecFault) return flatText(e);
    throw fault;
  }
}

/**
 * An element the schema does not name is kept rather than dropped, and never refuses a message
 * (WIRE.md "Envelope"): once as its text (or, holding elements, as a row of its children),
 * repeated as a list of those with empty repeats dropped.
 */
function decodeUnknown(elements: readonly XmlElement[], where: string): RefValue {
  const values = elements.map((e) => (e.children.length > 0 ? unknownRow(e, where) : textOf(e, where)));
  if (values.length === 1) return values[0]!;
  if (values.every((v) => typeof v === "string" || v === null)) return values.flatMap((v) => v ?? []);
  return values.flatMap((v): RefRow[] => (v === null ? [] : typeof v === "string" ? [{ "#text": v }] : hasValue(v) ? [v] : []));
}

/**
 * One record `<TYPE>{key, fields…}`: the key element's trimmed text (PROTOCOL when it is missing,
 * empty or repeated), then every other child by the schema, fields in the schema's order, then
 * unknown elements in wire order. Attributes are read only where the schema names them.
 */
function decodeRefRecord(record: XmlElement, schema: RefTypeSchema, index: number): RefRecord {
  const where = `${schema.type} record ${index + 1}`;
  const groups = groupChildren(record, (name) => name === schema.key, where);
  const keyElement = groups.get(schema.key)?.[0];
  const rkey = keyElement === undefined ? null : textOf(keyElement, where);
  if (rkey === null) throw protocolFault(`${where} has no key ${schema.key}`);
  const at = `${schema.type} ${quote(rkey)}`;
  const fields: Record<string, RefValue> = {};
  for (const [name, kind] of Object.entries(schema.fields)) {
    const elements = groups.get(name);
    if (elements !== undefined) setOwn(fields, name, decodeField(kind, elements, at));
  }
  for (const [name, elements] of groups) {
    if (name !== schema.key && !Object.hasOwn(schema.fields, name)) setOwn(fields, name, decodeUnknown(elements, at));
  }
  return { rkey, fields };
}

/**
 * A reference-data message `<reftype>/<RESP|DNLD|ADD|UPD|DEL>` in the upstream layout
 * `MSG{META, RECS, <TYPE>*}` (WIRE.md "Reference data"): `RECS` directly under `MSG`, then the
 * records, each named exactly like the type. `RECS` is returned as declared and never checked
 * against the records here (it is untrustworthy; the processor warns). A record a DEL carries may
 * hold only its key. PROTOCOL for a record without its key, a RECS that is not an integer, or a
 * field given twice; CODEC_ERROR for a type without a schema (`REFERENCE_SCHEMAS`). Yields after
 * every `every` records.
 */
export function* decodeReference(msg: XmlElement, rtype: string, styp: string, every: number): Stepped<MsgKind> {
  const schema = REFERENCE_SCHEMAS.get(rtype);
  if (schema === undefined) throw codecFault(`no schema for reference type ${rtype}`);
  const recs = decodeRecs(msg);
  const records = yield* mapInSteps(childrenNamed(msg, rtype), (r, i) => decodeRefRecord(r, schema, i), every);
  return { kind: "reference", rtype, styp, recs, records };
}

/** defineProperty: a name like `__proto__` must stay a plain own property. */
function setOwn<V>(target: Record<string, V>, name: string, value: V): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
