import { messageXml } from "../../src/testing/sis-xml.arbitraries.js";

let seqn = 100_000;

/** A whole SIS message with a fresh SEQN (so no two are duplicates) and the given DTTM. */
export const sis = (type: string, styp: string, body: string, dttm = "20260305020000"): string =>
  messageXml({ sndr: "AODB", seqn: seqn++, dttm, type, styp }, body);

/** The required SCHD fields of a flight on 05MAR26 at 08:00 (as wire XML), overridable. */
export function fltr(flid: string, extra = "", sodt = "05MAR260800"): string {
  return `<FLTR><FLID>${flid}</FLID><ALCD>CZ</ALCD><FLNO>CZ${flid.slice(-4)}</FLNO><MVIN>D</MVIN><SODT>${sodt}</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>321</ACFT>${extra}</FLTR>`;
}

/** A SCHD message of the given subtype; `recs` defaults to the number of records. */
export const schd = (styp: string, records: readonly string[], opts: { dttm?: string; recs?: number | null } = {}): string => {
  const recs = opts.recs === null ? "" : `<RECS>${opts.recs ?? records.length}</RECS>`;
  return sis("SCHD", styp, `<SCHD>${recs}${records.join("")}</SCHD>`, opts.dttm);
};

/** A FLOP message of `styp` with one block per entry (`inner` is the block's XML after FLID). */
export const flop = (styp: string, blocks: readonly { flid: string; inner: string }[], dttm?: string): string =>
  sis("FLOP", styp, blocks.map((b) => `<FLOP><FLID>${b.flid}</FLID>${b.inner}</FLOP>`).join(""), dttm);

/** A FLOP/FDEL for one flight, with an optional FFID. */
export const fdel = (flid: string, ffid?: string, dttm?: string): string =>
  sis("FLOP", "FDEL", `<FLOP><FLID>${flid}</FLID>${ffid === undefined ? "" : `<FFID>${ffid}</FFID>`}<FDEL/></FLOP>`, dttm);
