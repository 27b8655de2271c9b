import { describe, expect, it } from "vitest";
import { FLOP_MATRIX, flopGroup } from "../../src/model/flop-matrix.js";

/** WIRE.md "FLOP subtypes", the table's rows: group → subtypes (and the elements each sets). */
const WIRE_GROUPS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  time: Object.fromEntries(
    ["APPT", "BOTM", "CNCL", "COBT", "CTOT", "EGSR", "EGST", "EOBT", "FINT", "IEST", "LACL", "NAAT", "NEAT", "PADT", "PEDT", "TOBT", "ESTT", "ACTT"].map((s) => [s, [s]]),
  ),
  plain: Object.fromEntries(["ACFT", "FLIN", "FLTY", "FTSS", "MAXP", "REMC", "RENO", "RUNW", "STND", "TRML", "PAXC"].map((s) => [s, [s]])),
  exss: { EXSS: ["EXSC", "EXSR"] },
  perField: { HNAG: ["PHAG", "FHAG", "MHAG"], VIPP: ["VIPP", "VIPR"] },
  taop: { TAOP: ["TAOP", "TAFL", "TAID"] },
  port: { PORT: ["PORT@O", "PORT@C"] },
  fdiv: { FDIV: ["FDIV", "FDIV@DDES", "FDIV@DDIR"] },
  fret: { FRET: ["FRET", "FRET@REID"] },
  flab: { FLAB: ["FLAB", "FLAB@ARES"] },
  replace: Object.fromEntries(["PSDT", "GTDT", "CKDT", "CLDT", "CHDT", "CHOT", "ABTM", "ROUT"].map((s) => [s, [s]])),
  merge: { ERUT: ["ERUT"], DELY: ["DELY"], SRVT: ["SRVT"], VIPF: ["VIPF", "VIPT"] },
  standRow: { PSHT: ["PSDT"], TIPT: ["PSDT"] },
  delete: { FDEL: [] },
};

const NEW_IN_ISSUE_17 = "ABTM APPT BOTM COBT EGSR EGST FINT FLIN FLTY IEST LACL MAXP NAAT NEAT PADT PEDT PORT PSHT SRVT TAOP TIPT VIPF VIPP".split(" ");

const rows = Object.entries(WIRE_GROUPS).flatMap(([group, subtypes]) => Object.entries(subtypes).map(([styp, elements]) => ({ group, styp, elements })));

describe("FLOP update matrix (WIRE.md FLOP subtypes)", () => {
  it.each(rows)("$styp is in group $group and sets $elements", ({ group, styp, elements }) => {
    const entry = flopGroup(styp);
    expect(entry?.group).toBe(group);
    expect([...(entry?.scalars ?? []), ...(entry?.collections ?? [])]).toStrictEqual(elements);
  });

  it("holds exactly the subtypes WIRE.md lists, the 23 of issue 17 among them", () => {
    expect(Object.keys(FLOP_MATRIX).sort()).toStrictEqual(rows.map((r) => r.styp).sort());
    expect(NEW_IN_ISSUE_17.filter((s) => flopGroup(s) === undefined)).toStrictEqual([]);
  });

  it("only ACFT, FLIN and FLTY are required plain scalars (an empty one is PROTOCOL)", () => {
    expect(Object.keys(FLOP_MATRIX).filter((s) => FLOP_MATRIX[s]?.required === true).sort()).toStrictEqual(["ACFT", "FLIN", "FLTY"]);
  });

  it("a subtype outside the table, or an inherited property name, has no group", () => {
    expect(flopGroup("ZZZZ")).toBeUndefined();
    expect(flopGroup("toString")).toBeUndefined();
    expect(flopGroup("estt")).toBeUndefined();
  });
});
