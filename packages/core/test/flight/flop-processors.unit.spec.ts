import { describe, expect, it } from "vitest";
import { flopProcessor } from "../../src/flight/flop-processor.js";
import { FLOP_MATRIX } from "../../src/model/flop-matrix.js";
import type { CollectionRow, FlightRecord, WireValue } from "../../src/model/flight-record.js";
import { COLLECTION_NAMES, collectionSpec, SCALAR_FIELDS, SCALAR_NAMES } from "../../src/model/flight-schema.js";
import type { CollectionName, ScalarName, ValueKind } from "../../src/model/flight-schema.js";
import { flightRecordToXml } from "../../src/testing/sis-xml.arbitraries.js";
import { expectRefused, FlightHarness } from "./flight-harness.js";
import { fdel, flop, fltr, schd, sis } from "./sis-messages.js";

const sample = (kind: ValueKind): string => {
  if (typeof kind === "object") return "oneOf" in kind ? kind.oneOf[kind.oneOf.length - 1]! : "NEW";
  return { text: "NEW", time: "2026-03-05T23:59", int: "7", duration: "01:30", dayOffset: "+1" }[kind];
};

/** Values an attribute must take for its element to be set at all. */
const VALID: Partial<Record<ScalarName, string>> = { "FDIV@DDIR": "TO", "FRET@REID": "A", "FLAB@ARES": "O" };

function sampleRow(name: CollectionName, parentKey?: string): CollectionRow {
  const spec = collectionSpec(name);
  const values: Record<string, WireValue> = {
    ...Object.fromEntries(Object.entries(spec.fields).map(([f, k]) => [f, sample(k)])),
    ...Object.fromEntries(Object.entries(spec.attributes ?? {}).map(([a, k]) => [`@${a}`, sample(k)])),
    ...(spec.text === undefined ? {} : { "#text": sample(spec.text) }),
  };
  let key = typeof spec.key === "string" ? (values[`@${spec.key}`] ?? "9") : values[spec.key.element]!;
  if (parentKey !== undefined) {
    const parent = collectionSpec(spec.parent as CollectionName).key;
    if (typeof parent !== "string") values[parent.element] = parentKey;
    key = `${parentKey}/${key}`;
  }
  return { key, values };
}

/**
 * A FLOP block that states every element msgx knows (and a push and a tractor time for stand
 * 210), all with values the base flight lacks.
 */
function everything(flid: string): string {
  const scalars = Object.fromEntries(SCALAR_NAMES.map((n) => [n, VALID[n] ?? sample(SCALAR_FIELDS[n])]));
  const collections: Partial<Record<CollectionName, CollectionRow[]>> = {};
  for (const name of COLLECTION_NAMES) {
    const parent = collectionSpec(name).parent as CollectionName | undefined;
    collections[name] = [parent === undefined ? sampleRow(name) : sampleRow(name, sampleRow(parent).key)];
  }
  const record: FlightRecord = { flid, scalars, collections };
  const standRows = "<PSHT PSHN='1'><PSTM>05MAR262301</PSTM><PSID>Y</PSID><PUST>210</PUST></PSHT><TIPT><TRTM>05MAR262302</TRTM><TRST>210</TRST></TIPT>";
  return flightRecordToXml(record, "FLOP").replace("</FLOP>", `${standRows}</FLOP>`);
}

/** A harness holding flight 1 (CZ1, D, 05MAR26 08:00, FLIN D), with `extra` elements. */
function withFlight(extra = ""): FlightHarness {
  const h = new FlightHarness();
  h.send(schd("DNLD", [fltr("1", extra)]));
  return h;
}

const one = (styp: string, inner: string, dttm?: string): string => flop(styp, [{ flid: "1", inner }], dttm);

function warningsOf(h: FlightHarness, msgId: number): { code: string; detail: string }[] {
  return h.warnings.filter((w) => w.msgId === msgId).map(({ code, detail }) => ({ code, detail }));
}

const scalarsOf = (h: FlightHarness, flid = "1") => h.flights.get(flid)!.scalars as Partial<Record<string, WireValue>>;
const rowsOf = (h: FlightHarness, name: CollectionName, flid = "1") => h.flights.get(flid)!.collections[name];

describe("FLOP processor: each subtype sets its group", () => {
  it.each(Object.entries(FLOP_MATRIX).filter(([styp]) => styp !== "FDEL"))("subtype %s sets exactly its group and ignores every other element", (styp, group) => {
    const h = withFlight("<PSDT PSNO='1'><PSST>210</PSST></PSDT>");
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

  it("a subtype outside the matrix never reaches the processor; if one does, it is FAILED(UNSUPPORTED)", () => {
    const processor = flopProcessor({ dayStartOffsetMinutes: 0, airportUtcOffsetMinutes: 480, msgTopicTarget: "KAFKA:msg", schdTarget: "KAFKA:schd" } as never);
    const meta = { sndr: "AODB", seqn: 1, dttm: "20260305020000", type: "FLOP", styp: "ZZZZ" };
    const ctx = { msgId: 1, meta, now: 0, flights: new Map(), openRequests: [] };
    expect(processor.apply({ kind: "flop", styp: "ZZZZ", blocks: [{ flid: "1", scalars: {}, collections: {} }] }, ctx)).toMatchObject({
      type: "failed",
      errorClass: "UNSUPPORTED",
    });
    expect(processor.apply({ kind: "flop", styp: "FDEL", blocks: [{ flid: "1", scalars: {}, collections: {} }] }, ctx)).toMatchObject({ type: "failed" });
  });
});

describe("FLOP group rules (WIRE.md FLOP subtypes)", () => {
  it("time: a TOBT FLOP without a TOBT element clears TOBT; an empty one clears; a value sets", () => {
    const h = withFlight("<TOBT>05MAR260740</TOBT><IEST>05MAR260750</IEST>");
    expect(h.send(one("TOBT", "<STND>ignored</STND>")).record.status).toBe("SUCCEEDED");
    expect(scalarsOf(h)).toMatchObject({ TOBT: null, IEST: "2026-03-05T07:50" });
    h.send(one("IEST", "<IEST/>"));
    expect(scalarsOf(h).IEST).toBeNull();
    h.send(one("IEST", "<IEST>05mar260755</IEST>"));
    expect(scalarsOf(h).IEST).toBe("2026-03-05T07:55");
  });

  it("plain scalar: absent is PROTOCOL; empty clears; empty ACFT, FLIN or FLTY is PROTOCOL", () => {
    const h = withFlight("<STND>210</STND><REMC>x</REMC>");
    expectRefused(h, one("STND", "<REMC>other</REMC>"), /FLID 1: STND absent/);
    h.send(one("STND", "<STND/>"));
    expect(scalarsOf(h).STND).toBeNull();
    for (const name of ["ACFT", "FLIN", "FLTY"]) expectRefused(h, one(name, `<${name}/>`), new RegExp(`${name} empty`));
    h.send(one("FLIN", "<FLIN>R</FLIN>"));
    h.send(one("MAXP", "<MAXP>0180</MAXP>"));
    expect(scalarsOf(h)).toMatchObject({ FLIN: "R", MAXP: "180" });
  });

  it("EXSS: EXSC absent is PROTOCOL; an empty EXSC clears EXSC and EXSR; a new EXSC without EXSR clears the old reason", () => {
    const h = withFlight();
    expectRefused(h, one("EXSS", "<EXSR>why</EXSR>"), /EXSC absent/);
    h.send(one("EXSS", "<EXSC>DELAY</EXSC><EXSR>天气</EXSR>"));
    expect(scalarsOf(h)).toMatchObject({ EXSC: "DELAY", EXSR: "天气" });
    h.send(one("EXSS", "<EXSC>CNCL</EXSC>"));
    expect(scalarsOf(h)).toMatchObject({ EXSC: "CNCL", EXSR: null });
    h.send(one("EXSS", "<EXSC>DELAY</EXSC><EXSR>天气</EXSR>"));
    h.send(one("EXSS", "<EXSC/><EXSR>kept?</EXSR>"));
    expect(scalarsOf(h)).toMatchObject({ EXSC: null, EXSR: null });
  });

  it("per field (HNAG, VIPP): each element set or cleared on its own, an absent one cleared", () => {
    const h = withFlight("<PHAG>1</PHAG><FHAG>2</FHAG><MHAG>3</MHAG><VIPP>2</VIPP><VIPR>A</VIPR>");
    h.send(one("HNAG", "<PHAG>9</PHAG><FHAG/>"));
    expect(scalarsOf(h)).toMatchObject({ PHAG: "9", FHAG: null, MHAG: null });
    h.send(one("VIPP", "<VIPR>B</VIPR>"));
    expect(scalarsOf(h)).toMatchObject({ VIPP: null, VIPR: "B" });
  });

  it("TAOP: all absent clears all three; any one empty clears all three", () => {
    const h = withFlight();
    h.send(one("TAOP", "<TAOP>HU</TAOP><TAFL>HU7801</TAFL><TAID>9</TAID>"));
    expect(scalarsOf(h)).toMatchObject({ TAOP: "HU", TAFL: "HU7801", TAID: "9" });
    h.send(one("TAOP", "<TAOP>HU</TAOP><TAFL/><TAID>9</TAID>"));
    expect(scalarsOf(h)).toMatchObject({ TAOP: null, TAFL: null, TAID: null });
    h.send(one("TAOP", "<TAOP>HU</TAOP><TAFL>HU7801</TAFL><TAID>9</TAID>"));
    h.send(one("TAOP", ""));
    expect(scalarsOf(h)).toMatchObject({ TAOP: null, TAFL: null, TAID: null });
  });

  it("PORT: POID absent or invalid is PROTOCOL; POTM sets the door POID names; empty or absent POTM clears it", () => {
    const h = withFlight();
    expectRefused(h, one("PORT", ""), /PORT absent/);
    expectRefused(h, one("PORT", "<PORT><POTM>05MAR260801</POTM></PORT>"), /POID/);
    expectRefused(h, one("PORT", "<PORT><POTM>05MAR260801</POTM><POID>X</POID></PORT>"), /POID/);
    h.send(one("PORT", "<PORT><POTM>05MAR260731</POTM><POID>O</POID></PORT>"));
    h.send(one("PORT", "<PORT><POTM>05MAR260801</POTM><POID>C</POID></PORT>"));
    expect(scalarsOf(h)).toMatchObject({ "PORT@O": "2026-03-05T07:31", "PORT@C": "2026-03-05T08:01" });
    h.send(one("PORT", "<PORT><POID>O</POID></PORT>"));
    expect(scalarsOf(h)).toMatchObject({ "PORT@O": null, "PORT@C": "2026-03-05T08:01" });
    h.send(one("PORT", "<PORT><POTM/><POID>C</POID></PORT>"));
    expect(scalarsOf(h)["PORT@C"]).toBeNull();
  });

  it("FDIV: DDES=\"\" clears, as does an absent or empty FDIV; DDES with an empty or invalid DDIR is PROTOCOL", () => {
    const h = withFlight();
    const diverted = { FDIV: "雷雨", "FDIV@DDES": "SZX", "FDIV@DDIR": "TO" };
    const cleared = { FDIV: null, "FDIV@DDES": null, "FDIV@DDIR": null };
    h.send(one("FDIV", '<FDIV DDES = "SZX" DDIR = "TO">雷雨</FDIV>'));
    expect(scalarsOf(h)).toMatchObject(diverted);
    h.send(one("FDIV", '<FDIV DDES=""/>'));
    expect(scalarsOf(h)).toMatchObject(cleared);
    for (const clear of ["", "<FDIV/>", '<FDIV DDIR="TO">why</FDIV>']) {
      h.send(one("FDIV", '<FDIV DDES="SZX" DDIR="TO">雷雨</FDIV>'));
      h.send(one("FDIV", clear));
      expect(scalarsOf(h), clear).toMatchObject(cleared);
    }
    expectRefused(h, one("FDIV", '<FDIV DDES="SZX" DDIR="">x</FDIV>'), /DDIR empty, not TO\|FROM/);
    expectRefused(h, one("FDIV", '<FDIV DDES="SZX" DDIR="D">x</FDIV>'), /DDIR "D"/);
    expectRefused(h, one("FDIV", '<FDIV DDES="SZX">x</FDIV>'), /DDIR absent/);
  });

  it("FRET: REID A|G with or without a reason; REID not A|G is PROTOCOL; empty or absent clears", () => {
    const h = withFlight();
    h.send(one("FRET", '<FRET REID="G">机械故障</FRET>'));
    expect(scalarsOf(h)).toMatchObject({ FRET: "机械故障", "FRET@REID": "G" });
    h.send(one("FRET", '<FRET REID="A"/>'));
    expect(scalarsOf(h)).toMatchObject({ FRET: null, "FRET@REID": "A" });
    h.send(one("FRET", "<FRET/>"));
    expect(scalarsOf(h)).toMatchObject({ FRET: null, "FRET@REID": null });
    h.send(one("FRET", '<FRET REID="A"/>'));
    h.send(one("FRET", ""));
    expect(scalarsOf(h)).toMatchObject({ FRET: null, "FRET@REID": null });
    expectRefused(h, one("FRET", '<FRET REID="R1">x</FRET>'), /REID "R1", not A\|G/);
    expectRefused(h, one("FRET", "<FRET>no REID</FRET>"), /REID absent/);
  });

  it("FLAB: ARES O|G sets; ARES=\"\", empty or absent clears; a missing ARES is PROTOCOL", () => {
    const h = withFlight();
    h.send(one("FLAB", '<FLAB ARES="G">风切变</FLAB>'));
    expect(scalarsOf(h)).toMatchObject({ FLAB: "风切变", "FLAB@ARES": "G" });
    h.send(one("FLAB", '<FLAB ARES="">风切变</FLAB>'));
    expect(scalarsOf(h)).toMatchObject({ FLAB: null, "FLAB@ARES": null });
    for (const clear of ["", "<FLAB/>"]) {
      h.send(one("FLAB", '<FLAB ARES="O"/>'));
      expect(scalarsOf(h)).toMatchObject({ FLAB: null, "FLAB@ARES": "O" });
      h.send(one("FLAB", clear));
      expect(scalarsOf(h), clear).toMatchObject({ FLAB: null, "FLAB@ARES": null });
    }
    expectRefused(h, one("FLAB", "<FLAB>go-around</FLAB>"), /ARES absent/);
    expectRefused(h, one("FLAB", '<FLAB ARES="bird strike">Y</FLAB>'), /ARES "bird strike"/);
  });

  it("collections: the governed element absent is PROTOCOL; one empty element clears the set", () => {
    const h = withFlight('<GTDT GTNO="1"><GATE>A1</GATE></GTDT><DELY CODE="81">ATC</DELY>');
    for (const styp of ["GTDT", "DELY", "ERUT", "SRVT", "VIPF", "CHOT", "ABTM"]) expectRefused(h, one(styp, "<STND>X</STND>"), new RegExp(`${styp} absent \\(no rows\\)`));
    h.send(one("GTDT", "<GTDT/>"));
    h.send(one("DELY", "<DELY></DELY>"));
    expect(rowsOf(h, "GTDT")).toStrictEqual([]);
    expect(rowsOf(h, "DELY")).toStrictEqual([]);
  });

  it("replace (GTDT, CHOT): the rows are the whole set, rows not named are deleted", () => {
    const h = withFlight('<GTDT GTNO="1"><GATE>A1</GATE></GTDT><GTDT GTNO="2"><GATE>A2</GATE></GTDT>');
    h.send(one("GTDT", '<GTDT GTNO="3"><GATE>A3</GATE><GTYP/></GTDT>'));
    expect(rowsOf(h, "GTDT")).toStrictEqual([{ key: "3", values: { GATE: "A3", GTYP: null } }]);
    h.send(one("CHOT", '<CHOT CSNO="1"><CHTM>05MAR260741</CHTM><CHID>ON</CHID><CHST>210</CHST></CHOT><CHOT CSNO="2"><CHTM>05MAR260806</CHTM><CHID>OFF</CHID><CHST>210</CHST></CHOT>'));
    h.send(one("CHOT", '<CHOT CSNO="2"><CHTM>05MAR260807</CHTM><CHID>OFF</CHID><CHST>210</CHST></CHOT>'));
    expect(rowsOf(h, "CHOT")).toStrictEqual([{ key: "2", values: { CHTM: "2026-03-05T08:07", CHID: "OFF", CHST: "210" } }]);
  });

  it("merge (DELY, ERUT, SRVT): new keys added, known keys updated, others kept", () => {
    const h = withFlight('<DELY CODE="81" DURA="0010">ATC</DELY><DELY CODE="93">WX</DELY><ERUT RTNO="1"><APCD>CAN</APCD></ERUT><ERUT RTNO="2"><APCD>PEK</APCD></ERUT>');
    h.send(one("DELY", '<DELY CODE="93" DURA="0120">雷雨</DELY><DELY CODE="11">PAX</DELY>'));
    expect(rowsOf(h, "DELY")?.map((r) => [r.key, r.values["@DURA"] ?? undefined, r.values["#text"]])).toStrictEqual([
      ["11", undefined, "PAX"],
      ["81", "00:10", "ATC"],
      ["93", "01:20", "雷雨"],
    ]);
    h.send(one("ERUT", '<ERUT RTNO="2"><APCD>SHA</APCD><SCAT>05MAR261000</SCAT></ERUT>'));
    expect(rowsOf(h, "ERUT")).toStrictEqual([
      { key: "1", values: { APCD: "CAN" } },
      { key: "2", values: { APCD: "SHA", SCAT: "2026-03-05T10:00" } },
    ]);
    h.send(one("SRVT", "<SRVT><SRTC>WCHR</SRTC><SRQT>2</SRQT></SRVT>"));
    h.send(one("SRVT", "<SRVT><SRTC>MEAL</SRTC><SRQT>40</SRQT><SARR>清真</SARR></SRVT>"));
    expect(rowsOf(h, "SRVT")?.map((r) => r.key)).toStrictEqual(["MEAL", "WCHR"]);
  });

  it("sequence keys (one byte upstream) are kept as sent: RTNO 0, 255 and 256 are three rows, none wraps", () => {
    const h = withFlight('<ERUT RTNO="0"><APCD>CAN</APCD></ERUT><ERUT RTNO="255"><APCD>PEK</APCD></ERUT><ERUT RTNO="256"><APCD>SHA</APCD></ERUT>');
    expect(rowsOf(h, "ERUT")?.map((r) => [r.key, r.values["APCD"]])).toStrictEqual([
      ["0", "CAN"],
      ["255", "PEK"],
      ["256", "SHA"],
    ]);
  });

  it("a merge row lacking a required part (ERUT APCD, SRVT SRQT, a key) is PROTOCOL", () => {
    const h = withFlight();
    expectRefused(h, one("ERUT", '<ERUT RTNO="1"><SCAT>05MAR261000</SCAT></ERUT>'), /ERUT\[1\] without APCD/);
    expectRefused(h, one("ERUT", '<ERUT RTNO="1"><APCD/></ERUT>'), /ERUT\[1\] without APCD/);
    expectRefused(h, one("ERUT", "<ERUT><APCD>CAN</APCD></ERUT>"), /without its key attribute RTNO/);
    expectRefused(h, one("SRVT", "<SRVT><SRTC>WCHR</SRTC></SRVT>"), /SRVT\[WCHR\] without SRQT/);
    expectRefused(h, one("SRVT", "<SRVT><SRQT>1</SRQT></SRVT>"), /without its key element SRTC/);
    expectRefused(h, one("DELY", '<DELY DURA="0010">x</DELY>'), /without its key attribute CODE/);
  });

  it("VIPF: VIPs merged by VPCD; a VIP stated with its VIPT rows has exactly those services; one without keeps its own", () => {
    const h = withFlight();
    const vip = (code: string, services: string) => `<VIPF><VPCD>${code}</VPCD><VFES>2</VFES>${services}</VIPF>`;
    const service = (code: string, qty: number) => `<VIPT><VSCD>${code}</VSCD><VTQY>${qty}</VTQY></VIPT>`;
    h.send(one("VIPF", vip("V1", service("LNG", 1) + service("CAR", 2)) + vip("V2", service("LNG", 3))));
    h.send(one("VIPF", vip("V1", service("CAR", 5)) + vip("V3", "")));
    expect(rowsOf(h, "VIPF")?.map((r) => r.key)).toStrictEqual(["V1", "V2", "V3"]);
    expect(rowsOf(h, "VIPT")?.map((r) => [r.key, r.values.VTQY])).toStrictEqual([
      ["V1/CAR", "5"],
      ["V2/LNG", "3"],
    ]);
    h.send(one("VIPF", vip("V2", "")));
    expect(rowsOf(h, "VIPT")?.map((r) => r.key)).toStrictEqual(["V1/CAR", "V2/LNG"]);
    h.send(one("VIPF", "<VIPF/>"));
    expect([rowsOf(h, "VIPF"), rowsOf(h, "VIPT")]).toStrictEqual([[], []]);
  });

  describe("stand rows (PSHT, TIPT)", () => {
    const plan = '<PSDT PSNO="1"><PSST>210</PSST><STST>05MAR260700</STST></PSDT><PSDT PSNO="2"><PSST>305</PSST></PSDT>';
    const push = (stand: string, inner = "<PSTM>05MAR260755</PSTM><PSID>Y</PSID>") => `<PSHT PSHN="1">${inner}<PUST>${stand}</PUST></PSHT>`;
    const tractor = (stand: string, time = "05MAR260757") => `<TIPT><TRTM>${time}</TRTM><TRST>${stand}</TRST></TIPT>`;

    it("PSHT sets push time and indicator on the PSDT row of its stand; a missing PSTM clears both", () => {
      const h = withFlight(plan);
      h.send(one("PSHT", push("210")));
      expect(rowsOf(h, "PSDT")).toStrictEqual([
        { key: "1", values: { PSST: "210", STST: "2026-03-05T07:00", PSTM: "2026-03-05T07:55", PSID: "Y" } },
        { key: "2", values: { PSST: "305" } },
      ]);
      h.send(one("PSHT", push("210", "<PSID>Y</PSID>")));
      expect(rowsOf(h, "PSDT")?.[0]?.values).toStrictEqual({ PSST: "210", STST: "2026-03-05T07:00", PSTM: null, PSID: null });
    });

    it("TIPT sets the tractor time of each row's stand", () => {
      const h = withFlight(plan);
      h.send(one("TIPT", tractor("210") + tractor("305", "05MAR260810")));
      expect(rowsOf(h, "PSDT")?.map((r) => r.values.TRTM)).toStrictEqual(["2026-03-05T07:57", "2026-03-05T08:10"]);
      h.send(one("TIPT", "<TIPT><TRTM/><TRST>305</TRST></TIPT>"));
      expect(rowsOf(h, "PSDT")?.map((r) => r.values.TRTM)).toStrictEqual(["2026-03-05T07:57", null]);
    });

    it("no rows, or a row without its stand, is PROTOCOL", () => {
      const h = withFlight(plan);
      expectRefused(h, one("PSHT", "<STND>210</STND>"), /PSHT absent \(no rows\)/);
      expectRefused(h, one("TIPT", ""), /TIPT absent \(no rows\)/);
      expectRefused(h, one("PSHT", push("").replace("<PUST></PUST>", "")), /PSHT without PUST/);
      expectRefused(h, one("TIPT", "<TIPT><TRTM>05MAR260757</TRTM><TRST/></TIPT>"), /TIPT without TRST/);
    });

    it("no matching stand row: ignored, with a no-stand-row warning (also on a flight with no stand plan)", () => {
      const h = withFlight(plan);
      const before = h.flights.get("1");
      const { record, events } = h.send(one("PSHT", push("999")));
      expect(record).toMatchObject({ status: "SUCCEEDED" });
      expect(events).toStrictEqual([]);
      expect(h.flights.get("1")).toBe(before);
      expect(warningsOf(h, record.msgId)).toStrictEqual([{ code: "no-stand-row", detail: "FLID 1: PSHT for stand 999 matches no PSDT row; ignored" }]);
      const bare = withFlight();
      const r = bare.send(one("TIPT", tractor("210"))).record;
      expect(rowsOf(bare, "PSDT")).toBeUndefined();
      expect(warningsOf(bare, r.msgId).map((w) => w.code)).toStrictEqual(["no-stand-row"]);
    });

    it("a later PSDT keeps the push and tractor values of a row that keeps its stand (ours), and drops them when the stand moves", () => {
      const h = withFlight(plan);
      h.send(one("PSHT", push("210")));
      h.send(one("TIPT", tractor("305")));
      h.send(one("PSDT", '<PSDT PSNO="1"><PSST>210</PSST><STST>05MAR260705</STST></PSDT><PSDT PSNO="2"><PSST>306</PSST></PSDT>'));
      expect(rowsOf(h, "PSDT")).toStrictEqual([
        { key: "1", values: { PSST: "210", STST: "2026-03-05T07:05", PSTM: "2026-03-05T07:55", PSID: "Y" } },
        { key: "2", values: { PSST: "306" } },
      ]);
    });
  });
});

describe("FLOP multi-block", () => {
  it("applies the blocks of known flights in order; an unknown FLID is skipped, named in the reason and warned about", () => {
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
    expect(warningsOf(h, record.msgId).map((w) => [w.code, w.detail])).toStrictEqual([
      ["no-flight", "FLOP/STND: no flight FLID 8; its block skipped"],
      ["no-flight", "FLOP/STND: no flight FLID 9; its block skipped"],
    ]);
  });

  it("SKIPPED no-flight:<FLID> only when no block names a known live flight", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    h.send(fdel("2"));
    const { record } = h.send(flop("STND", [{ flid: "8", inner: "<STND>X</STND>" }, { flid: "2", inner: "<STND>X</STND>" }]));
    expect(record).toMatchObject({ status: "SKIPPED", reason: "no-flight:8(+1)" });
    expect(warningsOf(h, record.msgId)).toStrictEqual([]);
  });

  it("a PROTOCOL fault in any block refuses the whole message, even beside good blocks or in an unknown flight's block", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")]));
    expectRefused(h, flop("STND", [{ flid: "1", inner: "<STND>S1</STND>" }, { flid: "2", inner: "" }]), /FLOP\/STND: FLID 2: STND absent/);
    expectRefused(h, flop("STND", [{ flid: "1", inner: "<STND>S1</STND>" }, { flid: "9", inner: "<REMC/>" }]), /FLID 9: STND absent/);
  });

  it("two blocks for one flight give one version and one event per target; blocks that cancel out change nothing", () => {
    const h = withFlight();
    const { events } = h.send(flop("STND", [{ flid: "1", inner: "<STND>A</STND>" }, { flid: "1", inner: "<STND>B</STND>" }]));
    expect(h.flights.get("1")).toMatchObject({ stateVersion: 2, scalars: { STND: "B" } });
    expect(events).toHaveLength(2);
    const none = h.send(flop("STND", [{ flid: "1", inner: "<STND>C</STND>" }, { flid: "1", inner: "<STND>B</STND>" }]));
    expect(none.events).toStrictEqual([]);
    expect(h.flights.get("1")?.stateVersion).toBe(2);
  });

  it("a stale FLOP never rolls the flight back: SKIPPED stale:<FLID>, no event; beside a fresh flight it is named", () => {
    const h = new FlightHarness();
    h.send(schd("DNLD", [fltr("1"), fltr("2")], { dttm: "20260305100000" }));
    h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR261000</ESTT>" }], "20260305110000"));
    const late = h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR260900</ESTT>" }], "20260305105959"));
    expect(late.record).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
    expect(h.flights.get("1")?.scalars.ESTT).toBe("2026-03-05T10:00");
    const mixed = h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR260900</ESTT>" }, { flid: "2", inner: "<ESTT>05MAR260930</ESTT>" }], "20260305105959"));
    expect(mixed.record).toMatchObject({ status: "SUCCEEDED", reason: "stale:1" });
    expect(mixed.events.map((e) => e.partitionKey)).toStrictEqual(["2", "2"]);
    // A stale time-group FLOP without its element does not clear it either.
    expect(h.send(flop("ESTT", [{ flid: "1", inner: "" }], "20260305105959")).record).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
    expect(h.flights.get("1")?.scalars.ESTT).toBe("2026-03-05T10:00");
  });

  it("no change is SUCCEEDED with no event and the bookkeeping untouched", () => {
    const h = withFlight("<STND>A1</STND>");
    const before = h.flights.get("1");
    const { record, events } = h.send(one("STND", "<STND>A1</STND><ESTT>05MAR261000</ESTT>", "20260305120000"));
    expect(record).toMatchObject({ status: "SUCCEEDED", reason: null });
    expect(events).toStrictEqual([]);
    expect(h.flights.get("1")).toBe(before);
  });
});

describe("FLOP switches for our choices (FlightProcessingOptions)", () => {
  const harness = (options: ConstructorParameters<typeof FlightHarness>[0], extra = "") => {
    const h = new FlightHarness(options);
    h.send(schd("DNLD", [fltr("1", extra), fltr("2")]));
    return h;
  };

  it("flopFaultScope block: a faulty block is skipped with a flop-block-fault warning, the others apply; all faulty is still DEAD", () => {
    const h = harness({ flopFaultScope: "block" });
    const { record } = h.send(flop("STND", [{ flid: "1", inner: "<STND>S1</STND>" }, { flid: "2", inner: "" }]));
    expect(record).toMatchObject({ status: "SUCCEEDED", reason: "fault:2" });
    expect(scalarsOf(h).STND).toBe("S1");
    expect(warningsOf(h, record.msgId)).toStrictEqual([{ code: "flop-block-fault", detail: "FLOP/STND: FLID 2: STND absent; block skipped" }]);
    expectRefused(h, flop("STND", [{ flid: "1", inner: "" }, { flid: "2", inner: "<REMC/>" }]), /FLID 1: STND absent \(every block is faulty\)/);
  });

  it("flopEmptyCollection reject: an empty replace-group collection or VIPF is PROTOCOL; an empty DELY still clears", () => {
    const h = harness({ flopEmptyCollection: "reject" }, '<GTDT GTNO="1"><GATE>A1</GATE></GTDT><DELY CODE="81">ATC</DELY>');
    expectRefused(h, one("GTDT", "<GTDT/>"), /GTDT empty \(clearing it is refused\)/);
    expectRefused(h, one("VIPF", "<VIPF/>"), /VIPF empty/);
    h.send(one("DELY", "<DELY/>"));
    expect(rowsOf(h, "DELY")).toStrictEqual([]);
  });

  it("flopRequiredEmpty clear: an empty FLIN clears it", () => {
    const h = harness({ flopRequiredEmpty: "clear" });
    expect(h.send(one("FLIN", "<FLIN/>")).record.status).toBe("SUCCEEDED");
    expect(scalarsOf(h).FLIN).toBeNull();
  });

  it("psdtKeepsStandRowFields false: a later PSDT replaces its rows whole", () => {
    const h = harness({ psdtKeepsStandRowFields: false }, '<PSDT PSNO="1"><PSST>210</PSST></PSDT>');
    h.send(one("PSHT", '<PSHT PSHN="1"><PSTM>05MAR260755</PSTM><PSID>Y</PSID><PUST>210</PUST></PSHT>'));
    expect(rowsOf(h, "PSDT")?.[0]?.values).toMatchObject({ PSTM: "2026-03-05T07:55" });
    h.send(one("PSDT", '<PSDT PSNO="1"><PSST>210</PSST></PSDT>'));
    expect(rowsOf(h, "PSDT")).toStrictEqual([{ key: "1", values: { PSST: "210" } }]);
  });
});

describe("FFID (WIRE.md Flight record)", () => {
  // fltr("1"): CZ / CZ1 / D / 05MAR26 08:00 / FLIN D.
  const FFID = "CZ-CZ1-D-05MAR260800-D";

  it("an FFID that agrees with the flight is stored; an unprefixed flight number agrees too", () => {
    const h = withFlight();
    const { record } = h.send(one("STND", `<FFID>CZ-1-D-05MAR260800-D</FFID><STND>S1</STND>`));
    expect(h.flights.get("1")).toMatchObject({ ffid: "CZ-1-D-05MAR260800-D", stateVersion: 2 });
    expect(warningsOf(h, record.msgId)).toStrictEqual([]);
    h.send(one("STND", `<FFID>${FFID}</FFID><STND>S1</STND>`));
    expect(h.flights.get("1")?.ffid).toBe(FFID);
  });

  it("a FLOP/FLIN whose FFID carries the new FLIN: applied, and the FFID stored, no warning", () => {
    const h = withFlight();
    h.send(one("STND", `<FFID>${FFID}</FFID><STND>S1</STND>`));
    const { record } = h.send(one("FLIN", "<FFID>CZ-CZ1-D-05MAR260800-I</FFID><FLIN>I</FLIN>"));
    expect(record.status).toBe("SUCCEEDED");
    expect(h.flights.get("1")).toMatchObject({ ffid: "CZ-CZ1-D-05MAR260800-I", scalars: { FLIN: "I" } });
    expect(warningsOf(h, record.msgId)).toStrictEqual([]);
  });

  it("an earlier SCHD that moved SODT and the flight number explains a FLOP's new FFID", () => {
    const h = withFlight();
    h.send(one("STND", `<FFID>${FFID}</FFID><STND>S1</STND>`));
    const moved = fltr("1", "", "05MAR260830").replace("<FLNO>CZ1</FLNO>", "<FLNO>CZ9</FLNO>");
    expect(h.send(schd("ADFT", [moved])).record.status).toBe("SUCCEEDED");
    const { record } = h.send(one("STND", "<FFID>CZ-CZ9-D-05MAR260830-D</FFID><STND>S2</STND>"));
    expect(h.flights.get("1")).toMatchObject({ ffid: "CZ-CZ9-D-05MAR260830-D", scalars: { STND: "S2" } });
    expect(warningsOf(h, record.msgId)).toStrictEqual([]);
  });

  it("an unexplained difference: the message applies, the stored FFID stays, an ffid-mismatch warning names the components", () => {
    const h = withFlight();
    h.send(one("STND", `<FFID>${FFID}</FFID><STND>S1</STND>`));
    const { record } = h.send(one("STND", "<FFID>MU-MU1-D-06MAR260800-I</FFID><STND>S2</STND>"));
    expect(record).toMatchObject({ status: "SUCCEEDED" });
    expect(h.flights.get("1")).toMatchObject({ ffid: FFID, scalars: { STND: "S2" }, stateVersion: 3 });
    expect(warningsOf(h, record.msgId)).toStrictEqual([
      {
        code: "ffid-mismatch",
        detail:
          'FLID 1: FFID "MU-MU1-D-06MAR260800-I" disagrees with the flight in ALCD MU (flight CZ), FLNO MU1 (flight CZ1), SODT 2026-03-06T08:00 (flight 2026-03-05T08:00), FLIN I (flight D); stored FFID kept',
      },
    ]);
    // Never adopted while it disagrees, not even by a flight with no FFID yet.
    const fresh = withFlight();
    fresh.send(one("STND", "<FFID>CZ-CZ1-A-05MAR260800-D</FFID><STND>S2</STND>"));
    expect(fresh.flights.get("1")).toMatchObject({ ffid: null, scalars: { STND: "S2" } });
  });

  it("an FFID that does not parse into five components (or a SODT that is not a body time): applied, an ffid-unparsable warning", () => {
    const h = withFlight();
    for (const bad of ["CZ-A", "CZ-CZ1-D-0800-D", "CZ--D-05MAR260800-D"]) {
      const { record } = h.send(one("STND", `<FFID>${bad}</FFID><STND>${bad}</STND>`));
      expect(record.status).toBe("SUCCEEDED");
      expect(warningsOf(h, record.msgId).map((w) => w.code)).toStrictEqual(["ffid-unparsable"]);
    }
    expect(h.flights.get("1")?.ffid).toBeNull();
    // An empty FFID says nothing.
    const { record } = h.send(one("STND", "<FFID/><STND>S4</STND>"));
    expect(warningsOf(h, record.msgId)).toStrictEqual([]);
  });

  it("is compared with the state after each block: two blocks, the first changes FLIN", () => {
    const h = withFlight();
    const { record } = h.send(
      flop("FLIN", [
        { flid: "1", inner: "<FFID>CZ-CZ1-D-05MAR260800-R</FFID><FLIN>R</FLIN>" },
        { flid: "1", inner: "<FFID>CZ-CZ1-D-05MAR260800-D</FFID><FLIN>I</FLIN>" },
      ]),
    );
    expect(h.flights.get("1")).toMatchObject({ ffid: "CZ-CZ1-D-05MAR260800-R", scalars: { FLIN: "I" }, stateVersion: 2 });
    expect(warningsOf(h, record.msgId).map((w) => w.code)).toStrictEqual(["ffid-mismatch"]);
  });
});

describe("FDEL processor", () => {
  it("unknown is SKIPPED no-flight; stale is SKIPPED stale; a matching FFID is stored with the delete", () => {
    const h = new FlightHarness();
    expect(h.send(fdel("1")).record).toMatchObject({ status: "SKIPPED", reason: "no-flight:1" });
    h.send(schd("DNLD", [fltr("1")], { dttm: "20260305100000" }));
    expect(h.send(fdel("1", undefined, "20260305095959")).record).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
    expect(h.send(fdel("1", "CZ-CZ1-D-05MAR260800-D", "20260305100000")).record).toMatchObject({ status: "SUCCEEDED", reason: null });
    expect(h.flights.get("1")).toMatchObject({ deleted: true, stateVersion: 2, ffid: "CZ-CZ1-D-05MAR260800-D" });
  });

  it("a differing FFID deletes all the same, with an ffid-mismatch warning (never DEAD)", () => {
    const h = withFlight();
    const { record, events } = h.send(fdel("1", "CZ-CZ1-A-05MAR260800-D"));
    expect(record).toMatchObject({ status: "SUCCEEDED" });
    expect(events.map((e) => e.eventType)).toStrictEqual(["TOMBSTONE", "TOMBSTONE"]);
    expect(h.flights.get("1")).toMatchObject({ deleted: true, ffid: null });
    expect(warningsOf(h, record.msgId).map((w) => w.code)).toStrictEqual(["ffid-mismatch"]);
  });
});
