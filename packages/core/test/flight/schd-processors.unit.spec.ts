import { describe, expect, it } from "vitest";
import { expectRefused, FlightHarness } from "./flight-harness.js";
import { fdel, fltr, schd, sis } from "./sis-messages.js";

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

  it("a record is the flight's full state: an absent scalar is unset, an empty one cleared; an absent collection is unset, `[]` clears; absent flights stay", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", '<STND>A1</STND><RENO>B1</RENO><EOBT>05MAR260750</EOBT><GTDT GTNO="1"><GATE>A1</GATE></GTDT><CKDT CKNO="1"><CHKC>C1</CHKC></CKDT>'), fltr("2")]));
    h.send(schd("DNLD", [fltr("1", "<RENO/><CKDT/>")], { dttm: "20260305030000" }));
    const f = h.flights.get("1")!;
    expect(f.scalars).toStrictEqual({
      ALCD: "CZ",
      FLNO: "CZ1",
      MVIN: "D",
      SODT: "2026-03-05T08:00",
      FLTY: "W",
      FLIN: "D",
      ACFT: "321",
      RENO: null,
    });
    expect(f.collections).toStrictEqual({ CKDT: [] });
    expect(f).toMatchObject({ stateVersion: 2, lastMsgId: 2, lastSrcDttm: "20260305030000" });
    expect(h.flights.get("2")).toMatchObject({ deleted: false, stateVersion: 1 });
  });

  it("ERUT is kept when a record leaves it out; stated, it replaces the whole route", () => {
    const h = new FlightHarness();
    const erut = '<ERUT RTNO="1"><APCD>CAN</APCD><SCDT>05MAR260800</SCDT><SDDC>+0</SDDC></ERUT><ERUT RTNO="2"><APCD>PEK</APCD><SCAT>05MAR261110</SCAT><SADC>+1</SADC></ERUT>';
    h.send(schd("DNLD", [fltr("1", `${erut}<ROUT RTNO="1"><APCD>PEK</APCD></ROUT>`)]));
    h.send(schd("DNLD", [fltr("1")], { dttm: "20260305030000" }));
    expect(h.flights.get("1")?.collections).toStrictEqual({
      ERUT: [
        { key: "1", values: { APCD: "CAN", SCDT: "2026-03-05T08:00", SDDC: "+0" } },
        { key: "2", values: { APCD: "PEK", SCAT: "2026-03-05T11:10", SADC: "+1" } },
      ],
    });
    h.send(schd("ADFT", [fltr("1", '<ERUT RTNO="1"><APCD>CAN</APCD></ERUT>')], { dttm: "20260305040000" }));
    expect(h.flights.get("1")?.collections).toStrictEqual({ ERUT: [{ key: "1", values: { APCD: "CAN" } }] });
    h.send(schd("ADFT", [fltr("1", "<ERUT/>")], { dttm: "20260305050000" }));
    expect(h.flights.get("1")?.collections).toStrictEqual({ ERUT: [] });
  });

  it("a record leaving out what a FLOP set unsets it too (the record is the whole state)", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    h.send(sis("FLOP", "ESTT", "<FLOP><FLID>1</FLID><ESTT>05MAR260815</ESTT></FLOP>", "20260305030000"));
    expect(h.flights.get("1")?.scalars.ESTT).toBe("2026-03-05T08:15");
    h.send(schd("DNLD", [fltr("1")], { dttm: "20260305040000" }));
    expect(h.flights.get("1")?.scalars).not.toHaveProperty("ESTT");
  });

  it("with schdRecsCheck warn, a wrong or missing RECS applies the package with a recs-mismatch warning", () => {
    const h = new FlightHarness({ schdRecsCheck: "warn" });
    const wrong = h.send(schd("DNLD", [fltr("1"), fltr("2")], { recs: 5 }));
    expect(wrong.record).toMatchObject({ status: "SUCCEEDED" });
    expect(h.warnings).toContainEqual({ msgId: 1, code: "recs-mismatch", detail: "SCHD: RECS 5 but 2 FLTR" });
    expect([...h.flights.keys()]).toStrictEqual(["1", "2"]);
    expect(h.send(schd("ADFT", [fltr("3")], { recs: null })).record).toMatchObject({ status: "SUCCEEDED" });
    expect(h.warnings).toContainEqual({ msgId: 2, code: "recs-mismatch", detail: "SCHD: RECS missing" });
    // The other package rules still refuse.
    expectRefused(h, schd("DNLD", [fltr("4"), fltr("4")], { recs: 9 }), "duplicate FLID 4");
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

  it("applies records dated before today (WIRE.md: the upstream skips them, we do not)", () => {
    const h = new FlightHarness();
    const { record } = h.send(schd("DNLD", [fltr("1", "", "01MAR260800"), fltr("2", "", "05MAR250800")]));
    expect(record).toMatchObject({ status: "SUCCEEDED" });
    expect(h.flights.get("1")).toMatchObject({ operationDay: "20260301", scalars: { SODT: "2026-03-01T08:00" } });
    expect(h.flights.get("2")).toMatchObject({ operationDay: "20250305", scalars: { SODT: "2025-03-05T08:00" } });
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

describe("ADFT processor (SCHD/ADFT, ADD, UPD)", () => {
  it("adds and updates the listed flights, each as its full state, deleting nothing", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1", "<RENO>B1</RENO>"), fltr("2")]));
    const { record } = h.send(schd("ADFT", [fltr("1", "<STND>B7</STND>"), fltr("3")]));
    expect(record.status).toBe("SUCCEEDED");
    expect(h.flights.get("1")).toMatchObject({ stateVersion: 2, scalars: { ALCD: "CZ", STND: "B7" } });
    expect(h.flights.get("1")?.scalars).not.toHaveProperty("RENO");
    expect(h.flights.get("2")).toMatchObject({ stateVersion: 1, deleted: false });
    expect(h.flights.get("3")).toMatchObject({ stateVersion: 1 });
  });

  it("refuses, writing nothing: a record without every required field (updates too), a cleared one, no records, a moved day", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    expectRefused(h, schd("ADFT", ["<FLTR><FLID>2</FLID><STND>B7</STND></FLTR>"]), "FLID 2: required ALCD missing");
    expectRefused(h, schd("ADFT", ["<FLTR><FLID>1</FLID><STND>B7</STND></FLTR>"]), "FLID 1: required ALCD missing");
    expectRefused(h, schd("ADFT", [fltr("1").replace("<ACFT>321</ACFT>", "")]), "FLID 1: required ACFT missing");
    expectRefused(h, schd("ADFT", [fltr("1").replace("<SODT>05MAR260800</SODT>", "<SODT/>")]), "FLID 1: required SODT is empty");
    expectRefused(h, schd("ADFT", []), "at least 1 FLTR expected, got 0");
    expectRefused(h, schd("ADFT", [fltr("1", "", "06MAR260800")]), "operation day 20260306 differs");
    expectRefused(h, schd("ADFT", [fltr("4")], { recs: null }), "RECS missing");
  });

  it.each(["ADD", "UPD"])("SCHD/%s is applied as ADFT by default", (styp) => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    const { record } = h.send(schd(styp, [fltr("1", "<STND>B7</STND>"), fltr("3")]));
    expect(record).toMatchObject({ status: "SUCCEEDED" });
    expect(h.flights.get("1")).toMatchObject({ stateVersion: 2, scalars: { STND: "B7" } });
    expect(h.flights.get("2")).toMatchObject({ stateVersion: 1, deleted: false });
    expect(h.flights.get("3")).toMatchObject({ stateVersion: 1 });
    expectRefused(h, schd(styp, ["<FLTR><FLID>5</FLID></FLTR>"]), `${styp}: FLID 5: required ALCD missing`);
  });

  it.each(["ADD", "UPD"])("SCHD/%s is FAILED(UNSUPPORTED), writing nothing, with schdAddUpdAsAdft off", (styp) => {
    const h = new FlightHarness({ schdAddUpdAsAdft: false });
    const { record, events } = h.send(schd(styp, [fltr("1")]));
    expect(record).toMatchObject({ status: "FAILED", errorClass: "UNSUPPORTED" });
    expect(events).toStrictEqual([]);
    expect(h.flights.size).toBe(0);
    expect(h.send(schd("ADFT", [fltr("1")])).record).toMatchObject({ status: "SUCCEEDED" });
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

describe("SCHD/DEL processor", () => {
  /** A SCHD/DEL record: only FLID is read, so anything else (even invalid) is ignored. */
  const del = (flid: string): string => `<FLTR><FLID>${flid}</FLID><SODT>not a time</SODT></FLTR>`;

  it("deletes the listed flights as FDEL does: state kept as a tombstone, TOMBSTONE events, version + 1", () => {
    const viaDel = new FlightHarness();
    const viaFdel = new FlightHarness();
    for (const h of [viaDel, viaFdel]) h.send(schd("DNLD", [fltr("1", "<STND>A1</STND>"), fltr("2"), fltr("3")]));
    const { record, events } = viaDel.send(schd("DEL", [del("1"), del("3")], { dttm: "20260305030000" }));
    expect(record).toMatchObject({ status: "SUCCEEDED", reason: null });
    viaFdel.send(fdel("1", undefined, "20260305030000"));
    viaFdel.send(fdel("3", undefined, "20260305030000"));
    expect(viaDel.flights.get("1")).toMatchObject({ deleted: true, stateVersion: 2, scalars: { STND: "A1" } });
    expect(viaDel.flights.get("2")).toMatchObject({ deleted: false, stateVersion: 1 });
    expect(events.map((e) => [e.partitionKey, e.target, e.eventType, e.stateVersion])).toStrictEqual([
      ["1", "KAFKA:msg", "TOMBSTONE", 2],
      ["1", "KAFKA:schd", "TOMBSTONE", 2],
      ["3", "KAFKA:msg", "TOMBSTONE", 2],
      ["3", "KAFKA:schd", "TOMBSTONE", 2],
    ]);
    // The same outcome as one FDEL per flight, but for the message id.
    const strip = ({ lastMsgId: _, ...rest }: { lastMsgId: number }) => rest;
    expect([...viaDel.flights.values()].map(strip)).toStrictEqual([...viaFdel.flights.values()].map(strip));
  });

  it("unknown FLIDs and deleted flights are no-ops; only unknown ones is SKIPPED no-flight", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    h.send(fdel("2"));
    const mixed = h.send(schd("DEL", [del("1"), del("2"), del("9")]));
    expect(mixed.record).toMatchObject({ status: "SUCCEEDED", reason: "no-flight:9;already-deleted:2" });
    expect(mixed.events.map((e) => e.partitionKey)).toStrictEqual(["1", "1"]);
    const none = h.send(schd("DEL", [del("8"), del("9")]));
    expect(none.record).toMatchObject({ status: "SKIPPED", reason: "no-flight:8(+1)" });
    expect(none.events).toStrictEqual([]);
  });

  it("a stale DEL leaves the flight alone: SKIPPED stale:<FLID>", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")], { dttm: "20260305100000" }));
    expect(h.send(schd("DEL", [del("1")], { dttm: "20260305090000" })).record).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
    expect(h.flights.get("1")).toMatchObject({ deleted: false, stateVersion: 1 });
  });

  it("keeps the SCHD package rules: RECS (or a warning with schdRecsCheck warn), at least one record, no FLID twice", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    expectRefused(h, schd("DEL", [del("1")], { recs: 2 }), "DEL: RECS 2 but 1 FLTR");
    expectRefused(h, schd("DEL", []), "at least 1 FLTR expected, got 0");
    expectRefused(h, schd("DEL", [del("1"), del("1")]), "duplicate FLID 1");
    const lenient = new FlightHarness({ schdRecsCheck: "warn" });
    lenient.send(schd("DNLD", [fltr("1")]));
    expect(lenient.send(schd("DEL", [del("1")], { recs: null })).record).toMatchObject({ status: "SUCCEEDED" });
    expect(lenient.flights.get("1")?.deleted).toBe(true);
    expect(lenient.warnings).toContainEqual({ msgId: 2, code: "recs-mismatch", detail: "SCHD: RECS missing" });
  });

  it("a FLTR without a FLID is PROTOCOL", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1")]));
    expectRefused(h, schd("DEL", ["<FLTR><ALCD>CZ</ALCD></FLTR>"]), "FLTR without FLID");
  });
});
