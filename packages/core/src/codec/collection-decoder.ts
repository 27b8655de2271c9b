import type { CollectionRow, WireValue } from "../model/flight-record.js";
import { childCollectionsOf, collectionSpec } from "../model/flight-schema.js";
import type { CollectionName, CollectionSpec } from "../model/flight-schema.js";
import { protocolFault, quote } from "./codec-fault.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeWireValue } from "./value-decoder.js";
import { childrenNamed, isEmptyElement } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

/** The collections one flight record states, keyed by name: a collection and its nested ones. */
export type DecodedCollections = Partial<Record<CollectionName, CollectionRow[]>>;

/** The key of a parent row, handed to the rows nested inside it. */
interface ParentKey {
  readonly key: string;
  /** The field the parent's key is stored under in each nested row (the parent's key element). */
  readonly field: string | undefined;
}

/** A row's key from its key attribute, trimmed; PROTOCOL when absent or empty. */
export function attributeKey(name: string, attribute: string, element: XmlElement, where: string): string {
  const key = element.attributes.get(attribute)?.trim() ?? "";
  if (key === "") throw protocolFault(`${where}: a ${name} row without its key attribute ${attribute}`);
  return key;
}

/**
 * The rule every keyed row set on the wire shares (flight collections, SCHS routes): only empty
 * elements → `[]` (cleared); an empty element mixed with rows → PROTOCOL (clear and set at once);
 * each row keyed by `keyOf`, a key twice → PROTOCOL (`shown` names it in the reason).
 */
export function decodeKeyedRows<R>(
  name: string,
  elements: readonly XmlElement[],
  where: string,
  keyOf: (element: XmlElement) => string,
  decode: (element: XmlElement, key: string) => R,
  shown: (key: string) => string = (key) => key,
): R[] {
  const empties = elements.filter(isEmptyElement).length;
  if (empties === elements.length) return [];
  if (empties > 0) throw protocolFault(`${where}: an empty ${name} (clear) is mixed with ${name} rows`);
  const seen = new Set<string>();
  return elements.map((element) => {
    const key = keyOf(element);
    if (seen.has(key)) throw protocolFault(`${where}: duplicate ${name} key ${quote(shown(key))}`);
    seen.add(key);
    return decode(element, key);
  });
}

function rowKey(name: CollectionName, spec: CollectionSpec, element: XmlElement, where: string): string {
  if (typeof spec.key === "string") return attributeKey(name, spec.key, element, where);
  const holders = childrenNamed(element, spec.key.element);
  if (holders.length > 1) throw protocolFault(`${where}: a ${name} row with more than one ${spec.key.element}`);
  const key = holders[0] === undefined ? "" : leafText(holders[0], `${where}: ${name}`).trim();
  if (key === "") throw protocolFault(`${where}: a ${name} row without its key element ${spec.key.element}`);
  return key;
}

function decodeRow(name: CollectionName, spec: CollectionSpec, element: XmlElement, key: string, where: string, tolerance: boolean, parent?: ParentKey): CollectionRow {
  const at = `${where}: ${name}[${key}]`;
  const values: Record<string, WireValue> = {};
  const children = groupChildren(element, (n) => Object.hasOwn(spec.fields, n), at);
  for (const [field, kind] of Object.entries(spec.fields)) {
    if (field === parent?.field) values[field] = parent.key;
    else {
      const child = children.get(field)?.[0];
      if (child !== undefined) values[field] = decodeWireValue(kind, leafText(child, at), `${at} ${field}`, tolerance);
    }
  }
  for (const [attribute, kind] of Object.entries(spec.attributes ?? {})) {
    const raw = element.attributes.get(attribute);
    if (raw !== undefined) values[`@${attribute}`] = decodeWireValue(kind, raw, `${at} @${attribute}`, tolerance);
  }
  if (spec.text !== undefined) values["#text"] = decodeWireValue(spec.text, element.text, `${at} text`, tolerance);
  return { key: parent === undefined ? key : `${parent.key}/${key}`, values };
}

/**
 * The rows of one collection's elements. Only empty elements (no attributes, no children, no
 * text): `[]`. PROTOCOL when an empty element is mixed with rows, a row lacks its key, or a key
 * repeats. Rows nested in these rows (see `CollectionSpec.parent`) are added to `out`.
 */
function decodeRows(name: CollectionName, elements: readonly XmlElement[], where: string, tolerance: boolean, out: DecodedCollections, parent?: ParentKey): CollectionRow[] {
  const spec = collectionSpec(name);
  const children = childCollectionsOf(name);
  return decodeKeyedRows(
    name,
    elements,
    where,
    (element) => rowKey(name, spec, element, where),
    (element, key) => {
      const row = decodeRow(name, spec, element, key, where, tolerance, parent);
      const asParent: ParentKey = { key: row.key, field: typeof spec.key === "string" ? undefined : spec.key.element };
      for (const child of children) {
        const rows = decodeRows(child, childrenNamed(element, child), `${where}: ${name}[${key}]`, tolerance, out, asParent);
        out[child] = [...(out[child] ?? []), ...rows];
      }
      return row;
    },
    (key) => (parent === undefined ? key : `${parent.key}/${key}`),
  );
}

/**
 * Decodes all elements of one collection in one flight record (`where` names the record), with the
 * collections nested in its rows (VIPT inside VIPF).
 *
 * - Only empty elements: the collection and its nested ones are `[]` (cleared).
 * - Otherwise one row per element, keyed by the spec's key attribute or key element (trimmed).
 *   Inside a row an absent field/attribute is left out and an empty one is `null`; an element's
 *   own text is `#text` when the spec has `text` (`null` when empty).
 * - A nested collection holds the rows of every parent row, each keyed `<parent key>/<own key>`
 *   with the parent's key as a field; it is `[]` when no parent row holds one. A parent row with
 *   only empty nested elements holds none.
 *
 * PROTOCOL when an empty element is mixed with rows (clear and set at once), a row lacks its key,
 * a key repeats, or a value is outside its domain.
 */
export function decodeCollection(name: CollectionName, elements: readonly XmlElement[], where: string, tolerance: boolean): DecodedCollections {
  const out: DecodedCollections = {};
  for (const child of childCollectionsOf(name)) out[child] = [];
  out[name] = decodeRows(name, elements, where, tolerance, out);
  return out;
}
