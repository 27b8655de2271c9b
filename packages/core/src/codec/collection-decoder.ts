import type { CollectionRow, WireValue } from "../model/flight-record.js";
import { COLLECTIONS } from "../model/flight-schema.js";
import type { CollectionName, CollectionSpec } from "../model/flight-schema.js";
import { protocolFault, quote } from "./codec-fault.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeWireValue } from "./value-decoder.js";
import { isEmptyElement } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

function decodeRow(name: CollectionName, spec: CollectionSpec, element: XmlElement, key: string, where: string, tolerance: boolean): CollectionRow {
  const at = `${where}: ${name}[${key}]`;
  const values: Record<string, WireValue> = {};
  const children = groupChildren(element, (n) => Object.hasOwn(spec.fields, n), at);
  for (const [field, kind] of Object.entries(spec.fields)) {
    const child = children.get(field)?.[0];
    if (child !== undefined) values[field] = decodeWireValue(kind, leafText(child, at), `${at} ${field}`, tolerance);
  }
  for (const [attribute, kind] of Object.entries(spec.attributes ?? {})) {
    const raw = element.attributes.get(attribute);
    if (raw !== undefined) values[`@${attribute}`] = decodeWireValue(kind, raw, `${at} @${attribute}`, tolerance);
  }
  if (spec.text !== undefined) values["#text"] = decodeWireValue(spec.text, element.text, `${at} text`, tolerance);
  return { key, values };
}

/**
 * Decodes all elements of one collection in one flight record (`where` names the record).
 *
 * - Only empty elements (no attributes, no children, no text): `[]`, the collection is cleared.
 * - Otherwise one row per element, keyed by the spec's key attribute (trimmed) or by 1-based
 *   position. Inside a row an absent field/attribute is left out and an empty one is `null`; an
 *   element's own text is `#text` when the spec has `text` (`null` when empty).
 *
 * PROTOCOL when an empty element is mixed with rows (clear and set at once), a row lacks its key,
 * a key repeats, or a value is outside its domain.
 */
export function decodeCollection(name: CollectionName, elements: readonly XmlElement[], where: string, tolerance: boolean): CollectionRow[] {
  const spec: CollectionSpec = COLLECTIONS[name];
  const empties = elements.filter(isEmptyElement).length;
  if (empties === elements.length) return [];
  if (empties > 0) throw protocolFault(`${where}: an empty ${name} (clear) is mixed with ${name} rows`);

  const seen = new Set<string>();
  return elements.map((element, index) => {
    let key: string;
    if (typeof spec.key === "string") {
      key = element.attributes.get(spec.key)?.trim() ?? "";
      if (key === "") throw protocolFault(`${where}: a ${name} row without its key attribute ${spec.key}`);
    } else {
      key = String(index + 1);
    }
    if (seen.has(key)) throw protocolFault(`${where}: duplicate ${name} key ${quote(key)}`);
    seen.add(key);
    return decodeRow(name, spec, element, key, where, tolerance);
  });
}
