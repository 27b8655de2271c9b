import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { compareFlights, ignoreEntryProblem, type ComparableFlight, type FlightDifference } from "../../src/flight/flight-comparison.js";

const flight = (flid: string, over: Partial<ComparableFlight> = {}): ComparableFlight => ({
  schemaVersion: 2,
  flid,
  ffid: null,
  operationDay: "20260305",
  stateVersion: 1,
  deleted: false,
  lastMsgId: 1,
  lastSrcDttm: "20260305020000",
  fields: { ALCD: "CZ", FLNO: "CZ3101", ESTT: "2026-03-05T08:10" },
  collections: { GTDT: [{ key: "1", values: { GATE: "A25", GTYP: "D" } }] },
  ...over,
});

const arbValue = fc.oneof(fc.constant(null), fc.constantFrom("A", "B", "2026-03-05T08:00", "+1"));
const arbValues = fc.dictionary(fc.constantFrom("GATE", "GTYP", "@CODE", "#text"), arbValue, { maxKeys: 3 });
const arbRows = fc.uniqueArray(fc.record({ key: fc.constantFrom("1", "2", "10", "X"), values: arbValues }), { selector: (r) => r.key, maxLength: 3 });
const arbFlight = fc.record({
  flid: fc.constantFrom("7", "900101", "900102", "900103", "1000000"),
  ffid: fc.option(fc.constant("CZ-CZ3101-D-05MAR260800-D"), { nil: null }),
  operationDay: fc.constantFrom("20260305", "20260306"),
  stateVersion: fc.nat(9),
  deleted: fc.boolean(),
  lastMsgId: fc.nat(99),
  fields: fc.dictionary(fc.constantFrom("ALCD", "ESTT", "STND", "PORT@O"), arbValue, { maxKeys: 4 }),
  collections: fc.dictionary(fc.constantFrom("GTDT", "DELY"), arbRows, { maxKeys: 2 }),
});
const arbFlights = fc.uniqueArray(arbFlight, { selector: (f) => f.flid, maxLength: 5 });

/** A change planted in one flight: a field, a row, or the flight itself. */
const arbPlant = fc.constantFrom("field", "row added", "flight missing");

function plant(flights: readonly ComparableFlight[], index: number, what: string): { changed: ComparableFlight[]; expected: Pick<FlightDifference, "flid" | "kind" | "path"> } {
  const target = flights[index]!;
  const flid = target.flid;
  const rest = flights.filter((_, i) => i !== index);
  switch (what) {
    case "field":
      return { changed: [...rest, { ...target, fields: { ...target.fields, CTOT: "2026-03-05T09:99" } }], expected: { flid, kind: "field", path: "fields.CTOT" } };
    case "row added": {
      const rows = (target.collections?.["CHOT"] ?? []) as readonly { key: string; values: Record<string, unknown> }[];
      const row = { key: "77", values: { CHID: "ON" } };
      return { changed: [...rest, { ...target, collections: { ...target.collections, CHOT: [...rows, row] } }], expected: { flid, kind: "row", path: "collections.CHOT" } };
    }
    default:
      return { changed: rest, expected: { flid, kind: "missing", path: "flight" } };
  }
}

describe("compareFlights", () => {
  it("reports the field that differs with both values, and leaves out what belongs to each system", () => {
    const ours = [flight("900101", { fields: { ALCD: "CZ", FLNO: "CZ3101", ESTT: "2026-03-05T08:25" }, stateVersion: 2, lastMsgId: 4 })];
    const theirs = [flight("900101", { stateVersion: 7, lastMsgId: 812, lastSrcDttm: "20260305061500", schemaVersion: 1 })];
    const r = compareFlights(ours, theirs);
    expect(r.agree).toBe(false);
    expect(r.differences).toEqual([{ flid: "900101", kind: "field", path: "fields.ESTT", ours: "2026-03-05T08:25", theirs: "2026-03-05T08:10" }]);
    expect(r.byPath).toEqual({ "fields.ESTT": 1 });
    expect(r.flights).toEqual({ ours: 1, theirs: 1, both: 1, differing: 1 });
    expect(r.ignored).toEqual(["schemaVersion", "stateVersion", "lastMsgId", "lastSrcDttm"]);
  });

  it("tells absent, stated empty and a value apart", () => {
    const r = compareFlights([flight("1", { fields: { CNCL: null } })], [flight("1", { fields: { ESTT: "2026-03-05T08:10" } })]);
    expect(r.differences).toEqual([
      { flid: "1", kind: "field", path: "fields.CNCL", ours: null },
      { flid: "1", kind: "field", path: "fields.ESTT", theirs: "2026-03-05T08:10" },
    ]);
    const empty = compareFlights([flight("1", { collections: { GTDT: [] } })], [flight("1", { collections: {} })]);
    expect(empty.differences).toEqual([{ flid: "1", kind: "field", path: "collections.GTDT", ours: [] }]);
  });

  it("reports collection rows by their natural key: added (msgx only), removed (the other only), changed (which values)", () => {
    const ours = flight("1", {
      collections: {
        GTDT: [
          { key: "1", values: { GATE: "A26", GTYP: "D" } },
          { key: "2", values: { GATE: "B1" } },
        ],
        DELY: [{ key: "93", values: { "@CODE": "93", "@DURA": "00:20" } }],
      },
    });
    const theirs = flight("1", { collections: { GTDT: [{ key: "1", values: { GATE: "A25", GTYP: "D" } }], DELY: [{ key: "81", values: { "@CODE": "81" } }] } });
    expect(compareFlights([ours], [theirs]).differences).toEqual([
      { flid: "1", kind: "row", path: "collections.DELY", key: "81", change: "removed", theirs: { "@CODE": "81" } },
      { flid: "1", kind: "row", path: "collections.DELY", key: "93", change: "added", ours: { "@CODE": "93", "@DURA": "00:20" } },
      { flid: "1", kind: "row", path: "collections.GTDT", key: "1", change: "changed", ours: { GATE: "A26", GTYP: "D" }, theirs: { GATE: "A25", GTYP: "D" }, values: ["GATE"] },
      { flid: "1", kind: "row", path: "collections.GTDT", key: "2", change: "added", ours: { GATE: "B1" } },
    ]);
  });

  it("--ignore takes a top-level key, a field, a collection, or one value of a collection's rows", () => {
    const ours = [flight("1", { ffid: "X", fields: { ESTT: "a" }, collections: { GTDT: [{ key: "1", values: { GATE: "A26", GTYP: "D" } }], DELY: [] } })];
    const theirs = [flight("1", { ffid: "Y", fields: { ESTT: "b" }, collections: { GTDT: [{ key: "1", values: { GATE: "A26", GTYP: "I" } }] } })];
    expect(compareFlights(ours, theirs).differences.map((d) => d.path)).toEqual(["ffid", "fields.ESTT", "collections.DELY", "collections.GTDT"]);
    const r = compareFlights(ours, theirs, ["ffid", "fields.ESTT", "collections.DELY", "collections.GTDT.GTYP"]);
    expect(r.agree).toBe(true);
    expect(r.ignored).toContain("collections.GTDT.GTYP");
    expect(ignoreEntryProblem("fields.PORT@O")).toBeUndefined();
    expect(ignoreEntryProblem("collections.DELY.@DURA")).toBeUndefined();
    expect(ignoreEntryProblem("fields.")).toMatch(/cannot ignore/);
    expect(ignoreEntryProblem("fields.ESTT.x")).toMatch(/cannot ignore/);
  });

  it("compares keys the other system adds at the top level, in any key order", () => {
    const r = compareFlights([{ ...flight("1"), source: { a: 1, b: [1, 2] } }], [{ source: { b: [1, 2], a: 1 }, ...flight("1") }]);
    expect(r.agree).toBe(true);
    expect(compareFlights([{ ...flight("1"), source: "x" }], [flight("1")]).differences).toEqual([{ flid: "1", kind: "field", path: "source", ours: "x" }]);
  });

  it("orders by FLID numerically and counts the differing flights", () => {
    const r = compareFlights([flight("10"), flight("9")], [flight("100")]);
    expect(r.differences.map((d) => [d.flid, d.kind === "missing" ? d.missingFrom : d.kind])).toEqual([
      ["9", "theirs"],
      ["10", "theirs"],
      ["100", "ours"],
    ]);
    expect(r.flights).toEqual({ ours: 2, theirs: 1, both: 0, differing: 3 });
    expect(r.byPath).toEqual({ flight: 3 });
  });

  fcTest.prop([arbFlights])("a list compared with itself, in any order, agrees", (flights) => {
    const r = compareFlights(flights, [...flights].reverse());
    expect(r.agree).toBe(true);
    expect(r.differences).toEqual([]);
    expect(r.flights.both).toBe(flights.length);
  });

  fcTest.prop([arbFlights.filter((f) => f.length > 0), fc.nat(), arbPlant])("a planted change is reported exactly once, on its flight", (flights, i, what) => {
    const { changed, expected } = plant(flights, i % flights.length, what);
    const r = compareFlights(changed, flights);
    expect(r.differences).toHaveLength(1);
    expect(r.differences[0]).toMatchObject(expected);
    expect(r.flights.differing).toBe(1);
  });

  fcTest.prop([arbFlights, arbFlights])("swapping the sides swaps missingFrom, added/removed and ours/theirs, nothing else", (a, b) => {
    const forth = compareFlights(a, b).differences;
    const back = compareFlights(b, a).differences;
    const swap = (d: FlightDifference): FlightDifference => {
      if (d.kind === "missing") return { ...d, missingFrom: d.missingFrom === "ours" ? "theirs" : "ours" };
      const { ours, theirs, ...rest } = d;
      const swapped = { ...rest, ...(theirs !== undefined ? { ours: theirs } : {}), ...(ours !== undefined ? { theirs: ours } : {}) } as FlightDifference;
      if (swapped.kind === "row" && swapped.change !== "changed") return { ...swapped, change: swapped.change === "added" ? "removed" : "added" };
      return swapped;
    };
    expect(back).toEqual(forth.map(swap));
  });
});
