import { describe, expect, it } from "vitest";
import { FLOP_MATRIX } from "../../src/flight/flop-matrix.js";
import type { CollectionRow, FlightRecord } from "../../src/model/flight-record.js";
import { COLLECTION_NAMES, COLLECTIONS, SCALAR_FIELDS, SCALAR_NAMES } from "../../src/model/flight-schema.js";
import type { CollectionSpec, ValueKind } from "../../src/model/flight-schema.js";
import { flightRecordToXml } from "../../src/testing/sis-xml.arbitraries.js";
import { FlightHarness } from "./flight-harness.js";
import { fdel, flop, fltr, schd, sis } from "./sis-messages.js";

const sample = (kind: ValueKind): string => {
  if (typeof kind === "object") return kind.oneOf[kind.oneOf.length - 1]!;
  return { text: "NEW", time: "2026-03-05T23:59", int: "7", duration: "01:30", dayOffset: "+1" }[kind];
};

/** A FLOP block that states every element msgx knows, all with values the base flight lacks. */
function everything(flid: string): string {
  const scalars = Object.fromEntries(SCALAR_NAMES.map((n) => [n, sample(SCALAR_FIELDS[n])]));
  const collections = Object.fromEntries(
    COLLECTION_NAMES.map((name): [string, CollectionRow[]] => {
      const spec: CollectionSpec = COLLECTIONS[name];
      const values = {
        ...Object.fromEntries(Object.entries(spec.fields).map(([f, k]) => [f, sample(k)])),
        ...Object.fromEntries(Object.entries(spec.attributes ?? {}).map(([a, k]) => [`@${a}`, sample(k)])),
        ...(spec.text === undefined ? {} : { "#text": sample(spec.text) }),
      };
      return [name, [{ key: typeof spec.key === "string" ? "9" : "1", values }]];
    }),
  );
  const record: FlightRecord = { flid, scalars, collections };
  return flightRecordToXml(record, "FLOP");
}

describe("FLOP processor", () => {
  it.each(Object.entries(FLOP_MATRIX))("subtype %s sets exactly its group and ignores every other element", (styp, group) => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    const before = h.flights.get("1")!;
    const { record } = h.send(sis("FLOP", styp, everything("1"), "20260305030000"));
    expect(record.status).toBe("SUCCEEDED");
    const after = h.flights.get("1")!;
    const changedScalars = SCALAR_NAMES.filter((n) => after.scalars[n] !== before.scalars[n]);
    const changedCollections = COLLECTION_NAMES.filter((n) => JSON.stringify(after.collections[n]) !== JSON.stringify(before.collections[n]));
    expect(changedScalars).toStrictEqual(SCALAR_NAMES.filter((n) => group.scalars.includes(n)));
    expect(changedCollections).toStrictEqual(COLLECTION_NAMES.filter((n) => group.collections.includes(n)));
    expect(after).toMatchObject({ stateVersion: 2, lastMsgId: 2, lastSrcDttm: "20260305030000" });
  });

  it("covers the subtypes WIRE.md names (FDEL is its own kind)", () => {
    expect(Object.keys(FLOP_MATRIX).sort()).toStrictEqual(
      ["ESTT", "ACTT", "STND", "PSDT", "GTDT", "CKDT", "CLDT", "CHDT", "DELY", "FTSS", "CNCL", "FDIV", "FRET", "FLAB", "RENO", "ACFT", "TRML", "EOBT", "TOBT", "CTOT", "REMC", "EXSS", "HNAG", "ROUT", "ERUT", "CHOT", "RUNW", "PAXC"].sort(),
    );
  });

  it("a subtype outside the matrix is FAILED(UNSUPPORTED) and writes nothing", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    const { record, events } = h.send(flop("ZZZZ", [{ flid: "1", inner: "<STND>X</STND>" }]));
    expect(record).toMatchObject({ status: "FAILED", errorClass: "UNSUPPORTED" });
    expect(events).toStrictEqual([]);
  });

  it("an unknown or deleted flight is SKIPPED no-flight:<FLID>", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    h.send(fdel("2"));
    expect(h.send(flop("ESTT", [{ flid: "9", inner: "<ESTT>05MAR261000</ESTT>" }])).record).toMatchObject({ status: "SKIPPED", reason: "no-flight:9" });
    expect(h.send(flop("ESTT", [{ flid: "2", inner: "<ESTT>05MAR261000</ESTT>" }])).record).toMatchObject({ status: "SKIPPED", reason: "no-flight:2" });
  });

  it("multi-block: applies the blocks of known flights and names the unknown ones", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    const { record, events } = h.send(
      flop("STND", [
        { flid: "8", inner: "<STND>X</STND>" },
        { flid: "2", inner: "<STND>B2</STND>" },
        { flid: "9", inner: "<STND>X</STND>" },
        { flid: "1", inner: "<STND>B1</STND>" },
      ]),
    );
    expect(record).toMatchObject({ status: "SUCCEEDED", reason: "no-flight:8(+1)" });
    expect(events.map((e) => [e.target, e.partitionKey])).toStrictEqual([
      ["KAFKA:msg", "2"],
      ["KAFKA:schd", "2"],
      ["KAFKA:msg", "1"],
      ["KAFKA:schd", "1"],
    ]);
    expect(h.send(flop("STND", [{ flid: "8", inner: "" }, { flid: "9", inner: "" }])).record.reason).toBe("no-flight:8(+1)");
  });

  it("two blocks for one flight give one version and one event per target", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    const { events } = h.send(flop("STND", [{ flid: "1", inner: "<STND>A</STND>" }, { flid: "1", inner: "<STND>B</STND>" }]));
    expect(h.flights.get("1")).toMatchObject({ stateVersion: 2, scalars: { STND: "B" } });
    expect(events).toHaveLength(2);
    // Two blocks that cancel out change nothing.
    const none = h.send(flop("STND", [{ flid: "1", inner: "<STND>C</STND>" }, { flid: "1", inner: "<STND>B</STND>" }]));
    expect(none.events).toStrictEqual([]);
    expect(h.flights.get("1")?.stateVersion).toBe(2);
  });

  it("a collection replaces the whole set, an empty one clears it, an empty scalar clears it", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", '<CNCL>05MAR260700</CNCL><GTDT GTNO="1"><GATE>A1</GATE></GTDT><GTDT GTNO="2"><GATE>A2</GATE></GTDT>')]));
    h.send(flop("GTDT", [{ flid: "1", inner: '<GTDT GTNO="3"><GATE>A3</GATE><GTYP/></GTDT>' }]));
    expect(h.flights.get("1")?.collections.GTDT).toStrictEqual([{ key: "3", values: { GATE: "A3", GTYP: null } }]);
    h.send(flop("GTDT", [{ flid: "1", inner: "<GTDT/>" }]));
    expect(h.flights.get("1")?.collections.GTDT).toStrictEqual([]);
    h.send(flop("CNCL", [{ flid: "1", inner: "<CNCL></CNCL>" }]));
    expect(h.flights.get("1")?.scalars.CNCL).toBeNull();
    expect(h.flights.get("1")?.stateVersion).toBe(4);
  });

  it("an element with attributes sets them together; an empty one clears them all", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    h.send(flop("FDIV", [{ flid: "1", inner: '<FDIV DDES="PEK" DDIR="D">WX</FDIV>' }]));
    expect(h.flights.get("1")?.scalars).toMatchObject({ FDIV: "WX", "FDIV@DDES": "PEK", "FDIV@DDIR": "D" });
    h.send(flop("FDIV", [{ flid: "1", inner: "<FDIV/>" }]));
    expect(h.flights.get("1")?.scalars).toMatchObject({ FDIV: null, "FDIV@DDES": null, "FDIV@DDIR": null });
  });

  it("FFID: adopts the first one stated; a different one is DEAD(PROTOCOL) and writes nothing, even next to good blocks", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    h.send(flop("STND", [{ flid: "1", inner: "<FFID>CZ-A</FFID><STND>S1</STND>" }]));
    expect(h.flights.get("1")).toMatchObject({ ffid: "CZ-A", stateVersion: 2 });
    const before = new Map(h.flights);
    const { record, events } = h.send(flop("STND", [{ flid: "2", inner: "<STND>S2</STND>" }, { flid: "1", inner: "<FFID>CZ-B</FFID><STND>S3</STND>" }]));
    expect(record).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL" });
    expect(record.reason).toContain("FLID 1 FFID CZ-B differs from stored CZ-A");
    expect(events).toStrictEqual([]);
    expect(h.flights).toStrictEqual(before);
    // An empty FFID says nothing.
    expect(h.send(flop("STND", [{ flid: "1", inner: "<FFID/><STND>S4</STND>" }])).record.status).toBe("SUCCEEDED");
  });

  it("a stale FLOP never rolls the flight back: SKIPPED stale:<FLID>, no event", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")], { dttm: "20260305100000" }));
    h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR261000</ESTT>" }], "20260305110000"));
    const late = h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR260900</ESTT>" }], "20260305105959"));
    expect(late.record).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
    expect(h.flights.get("1")?.scalars.ESTT).toBe("2026-03-05T10:00");
    // Mixed with a fresh flight: applied, the stale one named.
    const mixed = h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR260900</ESTT>" }, { flid: "2", inner: "<ESTT>05MAR260930</ESTT>" }], "20260305105959"));
    expect(mixed.record).toMatchObject({ status: "SUCCEEDED", reason: "stale:1" });
    expect(mixed.events.map((e) => e.partitionKey)).toStrictEqual(["2", "2"]);
  });

  it("no change is SUCCEEDED with no event and the bookkeeping untouched", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", "<STND>A1</STND>")]));
    const before = h.flights.get("1");
    const { record, events } = h.send(flop("STND", [{ flid: "1", inner: "<STND>A1</STND><ESTT>05MAR261000</ESTT>" }], "20260305120000"));
    expect(record).toMatchObject({ status: "SUCCEEDED", reason: null });
    expect(events).toStrictEqual([]);
    expect(h.flights.get("1")).toBe(before);
  });
});

describe("FDEL processor", () => {
  it("unknown is SKIPPED no-flight; stale is SKIPPED stale; a different FFID is DEAD(PROTOCOL)", () => {
    const h = new FlightHarness();
    expect(h.send(fdel("1")).record).toMatchObject({ status: "SKIPPED", reason: "no-flight:1" });
    h.send(schd("DNLD", [fltr("1", "<FFID>CZ-A</FFID>")], { dttm: "20260305100000" }));
    expect(h.send(fdel("1", undefined, "20260305095959")).record).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
    expect(h.send(fdel("1", "CZ-B")).record).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL" });
    expect(h.flights.get("1")).toMatchObject({ deleted: false, stateVersion: 1 });
    expect(h.send(fdel("1", "CZ-A", "20260305100000")).record).toMatchObject({ status: "SUCCEEDED", reason: null });
    expect(h.flights.get("1")).toMatchObject({ deleted: true, stateVersion: 2 });
  });
});
