import type { CollectionRow, FlightRecord, WireValue } from "../model/flight-record.js";
import { COLLECTIONS, SCALAR_ATTRIBUTES, SCALAR_FIELDS } from "../model/flight-schema.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";
import { codecFault, protocolFault, quote } from "./codec-fault.js";
import { decodeCollection } from "./collection-decoder.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeWireValue } from "./value-decoder.js";
import type { XmlElement } from "./xml-tree.js";

/** (ours) FLID is a surrogate id: 1–18 digits keeps it inside a signed 64-bit column. Kept verbatim. */
const FLID_PATTERN = /^\d{1,18}$/;

const isScalarElement = (name: string): name is ScalarName => Object.hasOwn(SCALAR_FIELDS, name);
const isCollection = (name: string): name is CollectionName => Object.hasOwn(COLLECTIONS, name);

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
 * Decodes one flight record (`FLTR` in SCHD, a `FLOP` block) as the data-driven schema of
 * flight-schema.ts describes it: `FLID`, `FFID`, SCALAR_FIELDS by value kind, COLLECTIONS as rows.
 * Unknown elements are ignored.
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
  const groups = groupChildren(block, (n) => !isCollection(n) && (n === "FFID" || isScalarElement(n)), where);
  let ffid: WireValue | undefined;
  const scalars: Partial<Record<ScalarName, WireValue>> = {};
  const collections: Partial<Record<CollectionName, readonly CollectionRow[]>> = {};

  for (const [name, elements] of groups) {
    const [first] = elements;
    if (first === undefined) continue;
    if (name === block.name) throw codecFault(`${where}: a ${name} nested inside a ${name}`);
    if (name === "FFID") ffid = decodeWireValue("text", leafText(first, where), `${where}: FFID`, numericTimeTolerance);
    else if (isCollection(name)) collections[name] = decodeCollection(name, elements, where, numericTimeTolerance);
    else if (isScalarElement(name)) decodeScalar(name, first, where, numericTimeTolerance, scalars);
  }
  return ffid === undefined ? { flid, scalars, collections } : { flid, ffid, scalars, collections };
}
