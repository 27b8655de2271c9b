import type { MsgKind, RefRecord } from "../model/msg-kind.js";
import { protocolFault, quote } from "./codec-fault.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeRecs } from "./schd-body.js";
import { mapInSteps, type Stepped } from "./stepped.js";
import { childrenNamed } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

/** Subtypes that carry reference data (WIRE.md "Kinds"). */
export const REFERENCE_SUBTYPES: readonly string[] = ["RESP", "DNLD", "ADD", "UPD", "DEL"];

/**
 * (ours) The upstream does not publish the layout of reference records, so: every child of the
 * body other than `RECS` is one record; each child element of a record becomes one entry of
 * `attributes` (element name → trimmed text, `""` when empty); `rkey` is the text of the record's
 * first child element. Attributes of the record element itself are not kept.
 */
function decodeRefRecord(record: XmlElement, rtype: string): RefRecord {
  const where = `${rtype} record ${record.name}`;
  const [first] = record.children;
  if (first === undefined) throw protocolFault(`${where} has no fields`);
  const rkey = leafText(first, where).trim();
  if (rkey === "") throw protocolFault(`${where}: key ${first.name} is empty`);
  const attributes: Record<string, string> = {};
  for (const [name, elements] of groupChildren(record, () => true, `${where} ${quote(rkey)}`)) {
    const [element] = elements;
    if (element === undefined) continue;
    // defineProperty: a field named like __proto__ must stay a plain own property.
    Object.defineProperty(attributes, name, { value: leafText(element, where).trim(), enumerable: true, writable: true, configurable: true });
  }
  return { rkey, attributes };
}

/**
 * A reference-data message `<reftype>/<RESP|DNLD|ADD|UPD|DEL>`: the body element named like the
 * type, its `RECS` and its records (see {@link decodeRefRecord} for the record layout).
 * PROTOCOL when the body is missing or repeated, RECS is not an integer, or a record has no key.
 * Yields after every `every` records.
 */
export function* decodeReference(msg: XmlElement, rtype: string, styp: string, every: number): Stepped<MsgKind> {
  const bodies = childrenNamed(msg, rtype);
  const [body] = bodies;
  if (body === undefined) throw protocolFault(`${rtype} body missing`);
  if (bodies.length > 1) throw protocolFault(`more than one ${rtype} body`);
  const recs = decodeRecs(body);
  const records = yield* mapInSteps(body.children.filter((c) => c.name !== "RECS"), (r) => decodeRefRecord(r, rtype), every);
  return { kind: "reference", rtype, styp, recs, records };
}
