import { describe, expect, it } from "vitest";
import { FlightHarness } from "./flight-harness.js";
import { fdel, fltr, schd } from "./sis-messages.js";

/** Sends `raw`, expects DEAD(PROTOCOL) with `reason` inside, and no flight or event written. */
function expectRefused(h: FlightHarness, raw: string, reason: string): void {
  const flights = new Map(h.flights);
  const events = h.events.length;
  const { record } = h.send(raw);
  expect(record).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL" });
  expect(record.reason).toContain(reason);
  expect(h.flights).toStrictEqual(flights);
  expect(h.events).toHaveLength(events);
}

describe("snapshot processor (SCHD/DNLD)", () => {
  it("refuses the whole package, writing nothing, for each package rule", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    expectRefused(h, schd("DNLD", [fltr("2")], { recs: null }), "RECS missing");
    expectRefused(h, schd("DNLD", [fltr("2"), fltr("3")], { recs: 3 }), "RECS 3 but 2 FLTR");
    expectRefused(h, schd("DNLD", [fltr("2"), fltr("2")]), "duplicate FLID 2");
    expectRefused(h, schd("DNLD", [fltr("2"), fltr("3").replace("<FLTY>W</FLTY>", "")]), "FLID 3: required FLTY missing");
    expectRefused(h, schd("DNLD", [fltr("2"), fltr("3").replace("<ALCD>CZ</ALCD>", "<ALCD/>")]), "FLID 3: required ALCD is empty");
    // Required on every snapshot record, even one updating a stored flight.
    expectRefused(h, schd("DNLD", [fltr("1").replace("<FLIN>D</FLIN>", "")]), "FLID 1: required FLIN missing");
    expectRefused(h, schd("DNLD", [fltr("2"), fltr("1", "", "06MAR260800")]), "FLID 1: operation day 20260306 differs from stored 20260305");
    expect([...h.flights.keys()]).toStrictEqual(["1"]);
  });

  it("an empty snapshot (RECS 0) is valid and changes nothing", () => {
    const h = new FlightHarness();
    expect(h.send(schd("DNLD", [])).record).toMatchObject({ status: "SUCCEEDED" });
    expect(h.events).toStrictEqual([]);
  });

  it("merges: absent keeps the stored value, empty clears it, `[]` clears a collection; absent flights stay", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", "<ACFT>333</ACFT><RENO>B1</RENO><GTDT GTNO=\"1\"><GATE>A1</GATE></GTDT><CKDT CKNO=\"1\"><CHKC>C1</CHKC></CKDT>"), fltr("2")]));
    h.send(schd("DNLD", [fltr("1", "<RENO/><CKDT/>")], { dttm: "20260305030000" }));
    const f = h.flights.get("1")!;
    expect(f.scalars).toMatchObject({ ACFT: "333", RENO: null });
    expect(f.collections).toStrictEqual({ GTDT: [{ key: "1", values: { GATE: "A1" } }], CKDT: [] });
    expect(f).toMatchObject({ stateVersion: 2, lastMsgId: 2, lastSrcDttm: "20260305030000" });
    expect(h.flights.get("2")).toMatchObject({ deleted: false, stateVersion: 1 });
  });

  it("the same snapshot again changes nothing: no version, no bookkeeping, no event", () => {
    const h = new FlightHarness();
    const records = [fltr("1", "<STND>A1</STND>"), fltr("2")];
    h.send(schd("DNLD", records));
    const before = new Map(h.flights);
    const again = h.send(schd("DNLD", records, { dttm: "20260305040000" }));
    expect(again.record).toMatchObject({ status: "SUCCEEDED", reason: null });
    expect(again.events).toStrictEqual([]);
    expect(h.flights).toStrictEqual(before);
  });

  it("rows given in another order are the same state", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", '<GTDT GTNO="2"><GATE>B</GATE></GTDT><GTDT GTNO="10"><GATE>C</GATE></GTDT><GTDT GTNO="1"><GATE>A</GATE></GTDT>')]));
    expect(h.flights.get("1")?.collections.GTDT?.map((r) => r.key)).toStrictEqual(["1", "2", "10"]);
    const again = h.send(schd("DNLD", [fltr("1", '<GTDT GTNO="10"><GATE>C</GATE></GTDT><GTDT GTNO="1"><GATE>A</GATE></GTDT><GTDT GTNO="2"><GATE>B</GATE></GTDT>')]));
    expect(again.events).toStrictEqual([]);
  });

  it("stale records are left out; a package of only stale records is SKIPPED stale:<FLID>", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")], { dttm: "20260305100000" }));
    const older = h.send(schd("DNLD", [fltr("1", "<STND>X</STND>"), fltr("2", "<STND>Y</STND>")], { dttm: "20260305090000" }));
    expect(older.record).toMatchObject({ status: "SKIPPED", reason: "stale:1(+1)" });
    const mixed = h.send(schd("DNLD", [fltr("1", "<STND>X</STND>"), fltr("3")], { dttm: "20260305090000" }));
    expect(mixed.record).toMatchObject({ status: "SUCCEEDED", reason: "stale:1" });
    expect(mixed.events.map((e) => e.partitionKey)).toStrictEqual(["3", "3"]);
    expect(h.flights.get("1")?.scalars.STND).toBeUndefined();
    // The same DTTM is not stale.
    expect(h.send(schd("DNLD", [fltr("1", "<STND>Z</STND>")], { dttm: "20260305100000" })).record.reason).toBeNull();
    expect(h.flights.get("1")?.scalars.STND).toBe("Z");
  });

  it("sets the operation day once from SODT, shifted by the day-start offset", () => {
    const h = new FlightHarness({ dayStartOffsetMinutes: 240 });
    h.send(schd("DNLD", [fltr("1", "", "06MAR260359"), fltr("2", "", "06MAR260400")]));
    expect(h.flights.get("1")?.operationDay).toBe("20260305");
    expect(h.flights.get("2")?.operationDay).toBe("20260306");
    // Moving SODT within the same operation day keeps it.
    h.send(schd("ADFT", [fltr("1", "", "06MAR260100")]));
    expect(h.flights.get("1")).toMatchObject({ operationDay: "20260305", scalars: { SODT: "2026-03-06T01:00" } });
  });

  it("a deleted flight restated by a snapshot starts a new life: fresh content, its own day, version going on", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", "<STND>A1</STND>")]));
    h.send(fdel("1", "CZ-1"));
    const { events } = h.send(schd("DNLD", [fltr("1", "", "07MAR260900")]));
    expect(h.flights.get("1")).toMatchObject({ deleted: false, stateVersion: 3, operationDay: "20260307", ffid: null });
    expect(h.flights.get("1")?.scalars.STND).toBeUndefined();
    expect(events.map((e) => [e.target, e.eventType, e.stateVersion])).toStrictEqual([
      ["KAFKA:msg", "UPSERT", 3],
      ["KAFKA:schd", "UPSERT", 3],
    ]);
  });

  it("stores a stated FFID (SCHD is the authority on it)", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", "<FFID>A</FFID>")]));
    h.send(schd("DNLD", [fltr("1", "<FFID>B</FFID>")]));
    expect(h.flights.get("1")).toMatchObject({ ffid: "B", stateVersion: 2 });
    h.send(schd("DNLD", [fltr("1", "<FFID/>")]));
    expect(h.flights.get("1")).toMatchObject({ ffid: "B", stateVersion: 2 });
  });
});

describe("ADFT processor", () => {
  it("adds and updates the listed flights, deleting nothing; updates may leave required fields out", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    const { record } = h.send(schd("ADFT", ["<FLTR><FLID>1</FLID><STND>B7</STND></FLTR>", fltr("3")]));
    expect(record.status).toBe("SUCCEEDED");
    expect(h.flights.get("1")).toMatchObject({ stateVersion: 2, scalars: { ALCD: "CZ", STND: "B7" } });
    expect(h.flights.get("2")).toMatchObject({ stateVersion: 1, deleted: false });
    expect(h.flights.get("3")).toMatchObject({ stateVersion: 1 });
  });

  it("refuses, writing nothing: a new flight without required fields, a cleared required field, no records, a moved day", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    expectRefused(h, schd("ADFT", ["<FLTR><FLID>2</FLID><STND>B7</STND></FLTR>"]), "FLID 2: required ALCD missing");
    expectRefused(h, schd("ADFT", ["<FLTR><FLID>1</FLID><SODT/></FLTR>"]), "FLID 1: required SODT is empty");
    expectRefused(h, schd("ADFT", []), "at least 1 FLTR expected, got 0");
    expectRefused(h, schd("ADFT", ["<FLTR><FLID>1</FLID><SODT>06MAR260800</SODT></FLTR>"]), "operation day 20260306 differs");
    expectRefused(h, schd("ADFT", [fltr("4")], { recs: null }), "RECS missing");
  });

  it("a deleted flight must be restated in full to come back", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    h.send(fdel("1"));
    expectRefused(h, schd("ADFT", ["<FLTR><FLID>1</FLID><STND>B7</STND></FLTR>"]), "FLID 1: required ALCD missing");
    h.send(schd("ADFT", [fltr("1")]));
    expect(h.flights.get("1")).toMatchObject({ deleted: false, stateVersion: 3 });
  });
});
