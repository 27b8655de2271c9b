import type { MsgKind, SchdBody } from "../model/msg-kind.js";
import { protocolFault, quote } from "./codec-fault.js";
import { decodeFlightRecord } from "./flight-record-decoder.js";
import { leafText } from "./leaf-text.js";
import { mapInSteps, type Stepped } from "./stepped.js";
import { childrenNamed } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

/**
 * The declared record count of a body: `undefined` when `RECS` is absent (the processor decides
 * what that means), PROTOCOL when it repeats or is not a non-negative integer.
 */
export function decodeRecs(body: XmlElement): number | undefined {
  const recs = childrenNamed(body, "RECS");
  const [only] = recs;
  if (only === undefined) return undefined;
  if (recs.length > 1) throw protocolFault(`${body.name}: RECS occurs more than once`);
  const text = leafText(only, body.name).trim();
  if (!/^\d{1,9}$/.test(text)) throw protocolFault(`${body.name}: RECS ${quote(text)} is not an integer`);
  return Number(text);
}

/**
 * The one `SCHD` body element of a SCHD message: its `RECS` and its `FLTR` records in wire order,
 * yielding after every `every` records. PROTOCOL when `SCHD` is missing or repeated, or a record
 * is refused (see `decodeFlightRecord`). Record-level snapshot rules (count, duplicates, required
 * fields) belong to the processors.
 */
function* decodeSchdBody(msg: XmlElement, numericTimeTolerance: boolean, every: number): Stepped<SchdBody> {
  const bodies = childrenNamed(msg, "SCHD");
  const [body] = bodies;
  if (body === undefined) throw protocolFault("SCHD body missing");
  if (bodies.length > 1) throw protocolFault("more than one SCHD body");
  const recs = decodeRecs(body);
  const flights = yield* mapInSteps(childrenNamed(body, "FLTR"), (f) => decodeFlightRecord(f, numericTimeTolerance), every);
  return { recs, flights };
}

/** `SCHD/DNLD|RESP` → snapshot, `SCHD/ADFT` → adft, any other subtype → unsupported (body unread). */
export function* decodeSchd(msg: XmlElement, styp: string, numericTimeTolerance: boolean, every: number): Stepped<MsgKind> {
  if (styp === "DNLD" || styp === "RESP") return { kind: "snapshot", styp, body: yield* decodeSchdBody(msg, numericTimeTolerance, every) };
  if (styp === "ADFT") return { kind: "adft", body: yield* decodeSchdBody(msg, numericTimeTolerance, every) };
  return { kind: "unsupported", type: "SCHD", styp };
}
