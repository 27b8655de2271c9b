import type { CollectionRow, FlightRecord, WireValue } from "../model/flight-record.js";
import { INDEXED_SCALARS, SCALAR_ATTRIBUTES, SCALAR_FIELDS, TOP_COLLECTION_NAMES } from "../model/flight-schema.js";
import type { CollectionName, IndexedScalarName, ScalarName } from "../model/flight-schema.js";
import { codecFault, protocolFault, quote } from "./codec-fault.js";
import { decodeCollection } from "./collection-decoder.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeWireValue } from "./value-decoder.js";
import { isEmptyElement } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

/** (ours) FLID is a surrogate id: 1–18 digits keeps it inside a signed 64-bit column. Kept verbatim. */
const FLID_PATTERN = /^\d{1,18}$/;

const isScalarElement = (name: string): name is ScalarName => Object.hasOwn(SCALAR_FIELDS, name);
const isCollection = (name: string): name is CollectionName => (TOP_COLLECTION_NAMES as readonly string[]).includes(name);
const isIndexedScalar = (name: string): name is IndexedScalarName => Object.hasOwn(INDEXED_SCALARS, name);

/**
 * Reads the `FLID` of a `FLTR`/`FLOP` block: exactly one, decimal digits (trimmed, kept verbatim).
 * PROTOCOL otherwise, since the block cannot be addressed.
 */
export function decodeFlid(block: XmlElement): string {
  const flids = block.children.filter((c) => c.name === "FLID");
  const [only] = flids;
  if (only === undefined) throw protocolFault(`${block.name} without FLID`);
  if (flids.length > 1) throw protocolFault(`${block.name} with more than one FLID`);
  const flid = leafText(only, block.name).trim();
  if (!FLID_PATTERN.test(flid)) throw protocolFault(`${block.name}: FLID ${quote(flid)} is not a decimal id`);
  return flid;
}

/**
 * Decodes one scalar element into `scalars`: its text under its own name and, for elements with
 * attributes (SCALAR_ATTRIBUTES), each attribute as `NAME@ATTR`.
 *
 * An element with empty text and none of its known attributes is a clear: the element and all
 * its attributes become `null`. With attributes present, empty text is `null` for the element,
 * each present attribute is decoded (`""` is `null`), and an absent attribute stays absent
 * (unknown), as everywhere else on the wire.
 */
function decodeScalar(name: ScalarName, element: XmlElement, where: string, tolerance: boolean, scalars: Partial<Record<ScalarName, WireValue>>): void {
  scalars[name] = decodeWireValue(SCALAR_FIELDS[name], leafText(element, where), `${where}: ${name}`, tolerance);
  const attributes = SCALAR_ATTRIBUTES[name] ?? [];
  const present = attributes.filter((a) => element.attributes.has(a));
  const clearsAll = scalars[name] === null && present.length === 0;
  for (const attribute of attributes) {
    const field = `${name}@${attribute}`;
    if (!isScalarElement(field)) throw codecFault(`schema: ${field} is not a scalar field`);
    const raw = element.attributes.get(attribute);
    if (clearsAll) scalars[field] = null;
    else if (raw !== undefined) scalars[field] = decodeWireValue(SCALAR_FIELDS[field], raw, `${where}: ${field}`, tolerance);
  }
}

/**
 * Decodes the elements of one indexed scalar (`PORT{POTM, POID}`, see INDEXED_SCALARS): each sets
 * the scalar its indicator names to its value (`null` when the value is empty or absent). Only
 * empty elements clear every scalar of the group. PROTOCOL when an indicator is missing or not one
 * of the group's, or two elements name the same scalar.
 */
function decodeIndexed(name: IndexedScalarName, elements: readonly XmlElement[], where: string, tolerance: boolean, scalars: Partial<Record<ScalarName, WireValue>>): void {
  const spec = INDEXED_SCALARS[name];
  const targets: Readonly<Record<string, ScalarName>> = spec.fields;
  if (elements.every(isEmptyElement)) {
    for (const field of Object.values(targets)) scalars[field] = null;
    return;
  }
  const seen = new Set<ScalarName>();
  for (const element of elements) {
    const children = groupChildren(element, () => true, `${where}: ${name}`);
    const indicatorElement = children.get(spec.indicator)?.[0];
    const indicator = indicatorElement === undefined ? "" : leafText(indicatorElement, `${where}: ${name}`).trim();
    const field = Object.hasOwn(targets, indicator) ? targets[indicator] : undefined;
    if (field === undefined) {
      throw protocolFault(`${where}: ${name} ${spec.indicator} ${quote(indicator)} is not one of ${Object.keys(targets).join("|")}`);
    }
    if (seen.has(field)) throw protocolFault(`${where}: two ${name} elements for ${spec.indicator} ${indicator}`);
    seen.add(field);
    const valueElement = children.get(spec.value)?.[0];
    scalars[field] = valueElement === undefined ? null : decodeWireValue(SCALAR_FIELDS[field], leafText(valueElement, `${where}: ${name}`), `${where}: ${field}`, tolerance);
  }
}

/**
 * Decodes one flight record (`FLTR` in SCHD, a `FLOP` block) as the data-driven schema of
 * flight-schema.ts describes it: `FLID`, `FFID`, SCALAR_FIELDS by value kind, INDEXED_SCALARS
 * (`PORT`), COLLECTIONS as rows (with the collections nested in them, such as VIPT in VIPF).
 * Unknown elements are ignored, and so are nested collections' elements found outside their parent.
 *
 * Absent stays absent (the property is not set) and empty is `null`, for scalars, `ffid`,
 * attributes and row fields; a collection given only as an empty element is `[]`.
 *
 * PROTOCOL for a bad FLID, a repeated scalar, or a value outside its domain (the reason names the
 * element and the FLID); CODEC_ERROR for a block nested in itself or a scalar holding elements.
 */
export function decodeFlightRecord(block: XmlElement, numericTimeTolerance: boolean): FlightRecord {
  const flid = decodeFlid(block);
  const where = `FLID ${flid}`;
  const groups = groupChildren(block, (n) => n === "FFID" || isScalarElement(n), where);
  let ffid: WireValue | undefined;
  const scalars: Partial<Record<ScalarName, WireValue>> = {};
  const collections: Partial<Record<CollectionName, readonly CollectionRow[]>> = {};

  for (const [name, elements] of groups) {
    const [first] = elements;
    if (first === undefined) continue;
    if (name === block.name) throw codecFault(`${where}: a ${name} nested inside a ${name}`);
    if (name === "FFID") ffid = decodeWireValue("text", leafText(first, where), `${where}: FFID`, numericTimeTolerance);
    else if (isCollection(name)) Object.assign(collections, decodeCollection(name, elements, where, numericTimeTolerance));
    else if (isScalarElement(name)) decodeScalar(name, first, where, numericTimeTolerance, scalars);
    else if (isIndexedScalar(name)) decodeIndexed(name, elements, where, numericTimeTolerance, scalars);
  }
  return ffid === undefined ? { flid, scalars, collections } : { flid, ffid, scalars, collections };
}
