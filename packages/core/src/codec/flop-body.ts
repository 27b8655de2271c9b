import type { FlopBlock, StandRowElement, StandRowSpec, StandRowStatement } from "../model/flop-block.js";
import { STAND_ROW_ELEMENTS } from "../model/flop-block.js";
import type { WireValue } from "../model/flight-record.js";
import type { ValueKind } from "../model/flight-schema.js";
import type { MsgKind } from "../model/msg-kind.js";
import { codecFault, protocolFault } from "./codec-fault.js";
import { decodeFlid, decodeFlightRecord } from "./flight-record-decoder.js";
import { groupChildren, leafText } from "./leaf-text.js";
import { decodeWireValue } from "./value-decoder.js";
import { childrenNamed, isEmptyElement } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

/**
 * `FLOP/FDEL`: exactly one `FLOP` block naming the flight to delete. Its `FDEL` marker must be
 * empty (a non-empty FDEL is PROTOCOL); (ours) a block without the marker is still a delete,
 * since the subtype already says so. Other elements of the block are ignored.
 */
function decodeFdel(block: XmlElement): MsgKind {
  const flid = decodeFlid(block);
  if (childrenNamed(block, "FLOP").length > 0) throw codecFault(`FLID ${flid}: a FLOP nested inside a FLOP`);
  if (childrenNamed(block, "FDEL").some((f) => !isEmptyElement(f))) throw protocolFault(`FLID ${flid}: FDEL is not empty`);
  const ffids = childrenNamed(block, "FFID");
  const [ffid] = ffids;
  if (ffid === undefined) return { kind: "fdel", flid };
  if (ffids.length > 1) throw protocolFault(`FLID ${flid}: FFID occurs more than once`);
  return { kind: "fdel", flid, ffid: decodeWireValue("text", leafText(ffid, `FLID ${flid}`), `FLID ${flid}: FFID`, false) };
}

/** One stand-row element: each known child (at most once) and attribute, by its value kind. */
function decodeStandRow(spec: StandRowSpec, element: XmlElement, where: string, tolerance: boolean): StandRowStatement {
  const fields: Readonly<Record<string, ValueKind>> = { [spec.stand]: "text", ...spec.fields };
  const children = groupChildren(element, (n) => Object.hasOwn(fields, n), where);
  const values: Record<string, WireValue> = {};
  for (const [field, kind] of Object.entries(fields)) {
    const child = children.get(field)?.[0];
    if (child !== undefined) values[field] = decodeWireValue(kind, leafText(child, where), `${where} ${field}`, tolerance);
  }
  for (const [attribute, kind] of Object.entries(spec.attributes ?? {})) {
    const raw = element.attributes.get(attribute);
    if (raw !== undefined) values[`@${attribute}`] = decodeWireValue(kind, raw, `${where} @${attribute}`, tolerance);
  }
  return { values };
}

/** A FLOP block: its flight record, plus its `PSHT`/`TIPT` elements when it has any. */
function decodeFlopBlock(block: XmlElement, tolerance: boolean): FlopBlock {
  const record = decodeFlightRecord(block, tolerance);
  const standRows: Partial<Record<StandRowElement, StandRowStatement[]>> = {};
  for (const [name, spec] of Object.entries(STAND_ROW_ELEMENTS) as [StandRowElement, StandRowSpec][]) {
    const elements = childrenNamed(block, name);
    if (elements.length > 0) standRows[name] = elements.map((e) => decodeStandRow(spec, e, `FLID ${record.flid}: ${name}`, tolerance));
  }
  return Object.keys(standRows).length === 0 ? record : { ...record, standRows };
}

/**
 * A FLOP message: one or more `FLOP` blocks directly under `MSG`. `FDEL` → fdel (one block only);
 * any other subtype → flop with one `FlopBlock` per block, in wire order (whether the subtype is
 * in the update matrix, and what its block must hold, is the processor's call). PROTOCOL when no
 * `FLOP` block is present or a value is outside its domain.
 */
export function decodeFlop(msg: XmlElement, styp: string, numericTimeTolerance: boolean): MsgKind {
  const blocks = childrenNamed(msg, "FLOP");
  const [first] = blocks;
  if (first === undefined) throw protocolFault("FLOP body missing");
  if (styp === "FDEL") {
    if (blocks.length > 1) throw protocolFault(`FLOP/FDEL deletes one flight, got ${blocks.length} FLOP blocks`);
    return decodeFdel(first);
  }
  return { kind: "flop", styp, blocks: blocks.map((b) => decodeFlopBlock(b, numericTimeTolerance)) };
}
