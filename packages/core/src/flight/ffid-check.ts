import { parseBodyTime } from "../codec/body-time.js";
import type { WireValue } from "../model/flight-record.js";
import type { ScalarName } from "../model/flight-schema.js";
import type { MessageWarning } from "../processing/processor.js";
import type { FlightContent } from "./flight-content.js";

/** The components of an FFID, in wire order: `ALCD-FLNO-MVIN-SODT-FLIN`. */
const COMPONENTS = ["ALCD", "FLNO", "MVIN", "SODT", "FLIN"] as const satisfies readonly ScalarName[];

type Component = (typeof COMPONENTS)[number];

/** The FFID's components as the flight stores them (SODT as ISO local time), or undefined if it does not parse. */
function parseFfid(ffid: string): Record<Component, string> | undefined {
  const parts = ffid.split("-").map((p) => p.trim());
  if (parts.length !== COMPONENTS.length || parts.some((p) => p === "")) return undefined;
  const [alcd, flno, mvin, sodt, flin] = parts as [string, string, string, string, string];
  const iso = parseBodyTime(sodt);
  return iso === null ? undefined : { ALCD: alcd, FLNO: flno, MVIN: mvin, SODT: iso, FLIN: flin };
}

/**
 * Flight numbers agree when equal, or when one is the other without the flight's airline prefix
 * (upstream sometimes sends `3101` for `CZ3101`).
 */
function sameFlightNumber(stated: string, own: string, airline: string | null | undefined): boolean {
  if (stated === own) return true;
  if (typeof airline !== "string" || airline === "") return false;
  return `${airline}${stated}` === own || `${airline}${own}` === stated;
}

function agrees(component: Component, stated: Record<Component, string>, scalars: FlightContent["scalars"]): boolean {
  const own = scalars[component];
  if (typeof own !== "string") return false;
  return component === "FLNO" ? sameFlightNumber(stated.FLNO, own, scalars.ALCD) : own === stated[component];
}

/**
 * The FFID a flight keeps after a FLOP block (WIRE.md "Flight record", FFID), given its content
 * after the block. The FFID `ALCD-FLNO-MVIN-SODT-FLIN` legitimately changes for one FLID, so a
 * difference is never a rejection nor proof of FLID reuse:
 * - not stated, or empty: says nothing; the stored FFID stays;
 * - every component agrees with the flight (the flight number with or without its airline
 *   prefix): the stated FFID is stored (the message, or an earlier SCHD, explains any change);
 * - a component disagrees: the stored FFID stays and an `ffid-mismatch` warning names them;
 * - not five components with a body-time SODT: the stored FFID stays, an `ffid-unparsable` warning.
 */
export function reconcileFfid(flid: string, stated: WireValue | undefined, content: FlightContent): { ffid: WireValue; warning?: MessageWarning } {
  if (typeof stated !== "string") return { ffid: content.ffid };
  const parsed = parseFfid(stated);
  if (parsed === undefined) {
    return { ffid: content.ffid, warning: { code: "ffid-unparsable", detail: `FLID ${flid}: FFID ${JSON.stringify(stated)} is not ALCD-FLNO-MVIN-SODT-FLIN; stored FFID kept` } };
  }
  const differing = COMPONENTS.filter((c) => !agrees(c, parsed, content.scalars));
  if (differing.length === 0) return { ffid: stated };
  const detail = differing.map((c) => `${c} ${parsed[c]} (flight ${content.scalars[c] ?? "none"})`).join(", ");
  return { ffid: content.ffid, warning: { code: "ffid-mismatch", detail: `FLID ${flid}: FFID ${JSON.stringify(stated)} disagrees with the flight in ${detail}; stored FFID kept` } };
}
