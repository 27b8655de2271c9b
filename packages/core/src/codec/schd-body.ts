import type { MsgKind, SchdBody, SchdDelBody } from "../model/msg-kind.js";
import { protocolFault, quote } from "./codec-fault.js";
import { decodeFlid, decodeFlightRecord } from "./flight-record-decoder.js";
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

/** The one `SCHD` body element of a SCHD message; PROTOCOL when it is missing or repeated. */
function schdElement(msg: XmlElement): XmlElement {
  const bodies = childrenNamed(msg, "SCHD");
  const [body] = bodies;
  if (body === undefined) throw protocolFault("SCHD body missing");
  if (bodies.length > 1) throw protocolFault("more than one SCHD body");
  return body;
}

/**
 * A SCHD body: its `RECS` and its `FLTR` records in wire order, yielding after every `every`
 * records. PROTOCOL when a record is refused (see `decodeFlightRecord`). Record-level package
 * rules (count, duplicates, required fields) belong to the processors.
 */
function* decodeSchdBody(msg: XmlElement, numericTimeTolerance: boolean, every: number): Stepped<SchdBody> {
  const body = schdElement(msg);
  const recs = decodeRecs(body);
  const flights = yield* mapInSteps(childrenNamed(body, "FLTR"), (f) => decodeFlightRecord(f, numericTimeTolerance), every);
  return { recs, flights };
}

/** A SCHD/DEL body: `RECS` and the FLID of each `FLTR` (WIRE.md: only FLID is read). */
function* decodeSchdDelBody(msg: XmlElement, every: number): Stepped<SchdDelBody> {
  const body = schdElement(msg);
  const recs = decodeRecs(body);
  const flids = yield* mapInSteps(childrenNamed(body, "FLTR"), decodeFlid, every);
  return { recs, flids };
}

/**
 * SCHD by subtype (WIRE.md "Kinds"): `DNLD|RESP` → snapshot; `ADFT`, `ADD`, `UPD` → adft (its
 * `styp` kept, so the processor can tell ADD/UPD apart); `DEL` → schdDel; any other subtype →
 * unsupported (body unread).
 */
export function* decodeSchd(msg: XmlElement, styp: string, numericTimeTolerance: boolean, every: number): Stepped<MsgKind> {
  if (styp === "DNLD" || styp === "RESP") return { kind: "snapshot", styp, body: yield* decodeSchdBody(msg, numericTimeTolerance, every) };
  if (styp === "ADFT" || styp === "ADD" || styp === "UPD") return { kind: "adft", styp, body: yield* decodeSchdBody(msg, numericTimeTolerance, every) };
  if (styp === "DEL") return { kind: "schdDel", body: yield* decodeSchdDelBody(msg, every) };
  return { kind: "unsupported", type: "SCHD", styp };
}
