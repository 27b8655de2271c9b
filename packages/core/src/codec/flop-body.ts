import type { MsgKind } from "../model/msg-kind.js";
import { codecFault, protocolFault } from "./codec-fault.js";
import { decodeFlid, decodeFlightRecord } from "./flight-record-decoder.js";
import { leafText } from "./leaf-text.js";
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

/**
 * A FLOP message: one or more `FLOP` blocks directly under `MSG`. `FDEL` → fdel (one block only);
 * any other subtype → flop with one `FlightRecord` per block, in wire order (whether the subtype
 * is in the update matrix is the processor's call). PROTOCOL when no `FLOP` block is present.
 */
export function decodeFlop(msg: XmlElement, styp: string, numericTimeTolerance: boolean): MsgKind {
  const blocks = childrenNamed(msg, "FLOP");
  const [first] = blocks;
  if (first === undefined) throw protocolFault("FLOP body missing");
  if (styp === "FDEL") {
    if (blocks.length > 1) throw protocolFault(`FLOP/FDEL deletes one flight, got ${blocks.length} FLOP blocks`);
    return decodeFdel(first);
  }
  return { kind: "flop", styp, blocks: blocks.map((b) => decodeFlightRecord(b, numericTimeTolerance)) };
}
