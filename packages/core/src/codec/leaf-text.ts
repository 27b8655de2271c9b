import { codecFault, protocolFault } from "./codec-fault.js";
import type { XmlElement } from "./xml-tree.js";

/**
 * The text of an element that must be a leaf (a scalar or a row field). A leaf holding elements
 * is not forbidden by the contract but has no meaning here: CODEC_ERROR, so it can be replayed
 * once the decoder learns the shape instead of being silently misread.
 */
export function leafText(element: XmlElement, where: string): string {
  if (element.children.length > 0) {
    throw codecFault(`${where}: ${element.name} holds child elements, expected text`);
  }
  return element.text;
}

/**
 * Groups child elements by name (document order kept), refusing a name in `single` that occurs
 * more than once: two values for one field are ambiguous, so PROTOCOL.
 */
export function groupChildren(parent: XmlElement, single: (name: string) => boolean, where: string): Map<string, XmlElement[]> {
  const groups = new Map<string, XmlElement[]>();
  for (const child of parent.children) {
    const group = groups.get(child.name);
    if (group === undefined) groups.set(child.name, [child]);
    else if (single(child.name)) throw protocolFault(`${where}: ${child.name} occurs more than once`);
    else group.push(child);
  }
  return groups;
}
