/**
 * The FLOP rules of WIRE.md "FLOP subtypes" and "Flight record" (FFID) for the reference model
 * (flight-model.ts), written out subtype by subtype as plainly as possible, on plain objects. It
 * shares no logic with the processors.
 */
import { parseBodyTime } from "../../src/codec/body-time.js";
import type { CollectionRow, WireValue } from "../../src/model/flight-record.js";
import type { FlopBlock } from "../../src/model/flop-block.js";

/** A flight as the model holds it: scalars by name, rows by collection. */
export interface ModelContent {
  ffid: string | null;
  fields: Record<string, WireValue>;
  colls: Record<string, CollectionRow[]>;
}

const TIME = "APPT BOTM CNCL COBT CTOT EGSR EGST EOBT FINT IEST LACL NAAT NEAT PADT PEDT TOBT ESTT ACTT".split(" ");
const PLAIN = "ACFT FLIN FLTY FTSS MAXP REMC RENO RUNW STND TRML PAXC".split(" ");
const REQUIRED = ["ACFT", "FLIN", "FLTY"];
const REPLACE = "PSDT GTDT CKDT CLDT CHDT CHOT ABTM ROUT".split(" ");
const MERGE = "ERUT DELY SRVT VIPF".split(" ");
const STAND = { PSHT: { stand: "PUST", time: "PSTM", sets: ["PSTM", "PSID"] }, TIPT: { stand: "TRST", time: "TRTM", sets: ["TRTM"] } } as const;

const blank = (v: WireValue | undefined): boolean => v === null || v === undefined;
const scalarsOf = (b: FlopBlock): Record<string, WireValue | undefined> => b.scalars;
const standOf = (styp: string) => (styp === "PSHT" || styp === "TIPT" ? STAND[styp] : undefined);

/** Whether a block of subtype `styp` is a PROTOCOL fault. */
export function flopFault(styp: string, b: FlopBlock): boolean {
  const s = scalarsOf(b);
  if (PLAIN.includes(styp)) return s[styp] === undefined || (s[styp] === null && REQUIRED.includes(styp));
  if (styp === "EXSS") return s.EXSC === undefined;
  if (styp === "PORT") return s["PORT@O"] === undefined && s["PORT@C"] === undefined;
  if (styp === "FDIV") return typeof s["FDIV@DDES"] === "string" && s["FDIV@DDIR"] !== "TO" && s["FDIV@DDIR"] !== "FROM";
  if (styp === "FRET") return !(blank(s["FRET@REID"]) && blank(s.FRET)) && s["FRET@REID"] !== "A" && s["FRET@REID"] !== "G";
  if (styp === "FLAB") {
    const ares = s["FLAB@ARES"];
    if (ares === null || (ares === undefined && s.FLAB === undefined)) return false;
    return ares !== "O" && ares !== "G";
  }
  if (REPLACE.includes(styp) || MERGE.includes(styp)) {
    const rows = b.collections[styp as keyof FlopBlock["collections"]];
    if (rows === undefined) return true;
    if (styp === "ERUT") return rows.some((r) => typeof r.values.APCD !== "string");
    if (styp === "SRVT") return rows.some((r) => typeof r.values.SRQT !== "string");
    return false;
  }
  const stand = standOf(styp);
  if (stand !== undefined) {
    const rows = b.standRows?.[styp as "PSHT" | "TIPT"] ?? [];
    return rows.length === 0 || rows.some((r) => typeof r.values[stand.stand] !== "string");
  }
  return false;
}

function setScalars(f: ModelContent, values: Record<string, WireValue>): void {
  for (const [name, v] of Object.entries(values)) f.fields[name] = v;
}

/** Applies a block (known not to be a fault) of subtype `styp` to `f`. */
export function applyFlop(styp: string, b: FlopBlock, f: ModelContent): void {
  const s = scalarsOf(b);
  const v = (name: string): WireValue => s[name] ?? null;
  if (TIME.includes(styp) || PLAIN.includes(styp)) setScalars(f, { [styp]: v(styp) });
  else if (styp === "EXSS") setScalars(f, s.EXSC === null ? { EXSC: null, EXSR: null } : { EXSC: v("EXSC"), EXSR: v("EXSR") });
  else if (styp === "HNAG") setScalars(f, { PHAG: v("PHAG"), FHAG: v("FHAG"), MHAG: v("MHAG") });
  else if (styp === "VIPP") setScalars(f, { VIPP: v("VIPP"), VIPR: v("VIPR") });
  else if (styp === "TAOP") {
    const anyEmpty = s.TAOP === null || s.TAFL === null || s.TAID === null;
    setScalars(f, anyEmpty ? { TAOP: null, TAFL: null, TAID: null } : { TAOP: v("TAOP"), TAFL: v("TAFL"), TAID: v("TAID") });
  } else if (styp === "PORT") {
    for (const door of ["PORT@O", "PORT@C"]) if (s[door] !== undefined) f.fields[door] = v(door);
  } else if (styp === "FDIV") {
    const set = typeof s["FDIV@DDES"] === "string";
    setScalars(f, { FDIV: set ? v("FDIV") : null, "FDIV@DDES": set ? v("FDIV@DDES") : null, "FDIV@DDIR": set ? v("FDIV@DDIR") : null });
  } else if (styp === "FRET") {
    const set = !(blank(s["FRET@REID"]) && blank(s.FRET));
    setScalars(f, { FRET: set ? v("FRET") : null, "FRET@REID": set ? v("FRET@REID") : null });
  } else if (styp === "FLAB") {
    const set = typeof s["FLAB@ARES"] === "string";
    setScalars(f, { FLAB: set ? v("FLAB") : null, "FLAB@ARES": set ? v("FLAB@ARES") : null });
  } else if (REPLACE.includes(styp) || MERGE.includes(styp)) {
    applyRows(styp, b, f);
  } else {
    applyStandRows(styp, b, f);
  }
}

function applyRows(styp: string, b: FlopBlock, f: ModelContent): void {
  const rows = [...(b.collections[styp as keyof FlopBlock["collections"]] ?? [])];
  if (rows.length === 0) {
    f.colls[styp] = [];
    if (styp === "VIPF") f.colls.VIPT = [];
    return;
  }
  const old = f.colls[styp] ?? [];
  if (REPLACE.includes(styp)) {
    f.colls[styp] = rows.map((r) => {
      const was = old.find((o) => o.key === r.key);
      if (styp !== "PSDT" || was === undefined || typeof r.values.PSST !== "string" || was.values.PSST !== r.values.PSST) return r;
      const values = { ...r.values };
      for (const k of ["PSTM", "PSID", "TRTM"]) if (values[k] === undefined && was.values[k] !== undefined) values[k] = was.values[k]!;
      return { key: r.key, values };
    });
    return;
  }
  f.colls[styp] = [...old.filter((o) => !rows.some((r) => r.key === o.key)), ...rows];
  if (styp === "VIPF") {
    const services = b.collections.VIPT ?? [];
    const vips = new Set(services.map((r) => r.values.VPCD));
    f.colls.VIPT = [...(f.colls.VIPT ?? []).filter((r) => !vips.has(r.values.VPCD)), ...services];
  }
}

/** A stand-row element naming a stand no PSDT row has changes nothing. */
function applyStandRows(styp: string, b: FlopBlock, f: ModelContent): void {
  const spec = standOf(styp)!;
  for (const row of b.standRows?.[styp as "PSHT" | "TIPT"] ?? []) {
    const stand = row.values[spec.stand];
    const rows = f.colls.PSDT;
    if (rows === undefined) continue;
    const cleared = blank(row.values[spec.time]);
    const values = Object.fromEntries(spec.sets.map((k) => [k, cleared ? null : (row.values[k] ?? null)]));
    f.colls.PSDT = rows.map((r) => (r.values.PSST === stand ? { key: r.key, values: { ...r.values, ...values } } : r));
  }
}

/** The FFID the flight keeps after a block stating `stated` (WIRE.md "Flight record", FFID). */
export function ffidAfter(stated: WireValue | undefined, f: ModelContent): string | null {
  if (typeof stated !== "string") return f.ffid;
  const parts = stated.split("-").map((p) => p.trim());
  if (parts.length !== 5 || parts.includes("")) return f.ffid;
  const [alcd, flno, mvin, sodt, flin] = parts;
  const iso = parseBodyTime(sodt!);
  if (iso === null) return f.ffid;
  const own = f.fields;
  const sameFlno = flno === own.FLNO || (typeof own.ALCD === "string" && own.ALCD !== "" && (`${own.ALCD}${flno}` === own.FLNO || `${own.ALCD}${own.FLNO}` === flno));
  const agrees = alcd === own.ALCD && typeof own.FLNO === "string" && sameFlno && mvin === own.MVIN && iso === own.SODT && flin === own.FLIN;
  return agrees ? stated : f.ffid;
}
