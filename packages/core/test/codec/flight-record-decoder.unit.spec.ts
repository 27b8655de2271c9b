import { describe, expect, it } from "vitest";
import type { FlightRecord } from "../../src/model/flight-record.js";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { fixture, msg } from "./sis-fixtures.js";

/** TEST is outside the update matrix: the policy processes it so that every element is decoded. */
const flop = (inner: string, options?: Parameters<typeof decodeMessage>[1]) =>
  decodeMessage(msg("FLOP", "TEST", `<FLOP><FLID>900101</FLID>${inner}</FLOP>`), { typePolicy: { "FLOP/TEST": "process" }, ...options });

const block = (inner: string, options?: Parameters<typeof decodeMessage>[1]): FlightRecord => {
  const r = flop(inner, options);
  if (!r.ok || r.message.body.kind !== "flop") throw new Error(`expected a flop, got ${JSON.stringify(r)}`);
  const [first] = r.message.body.blocks;
  if (first === undefined) throw new Error("no block");
  return first;
};

describe("flight records: empty clears, absent is unknown", () => {
  it("decodes a block of clears, attributes and rows exactly (fixture 08)", () => {
    const r = decodeMessage(fixture("08-flop-clears.xml"));
    expect(r.ok && r.message.body).toStrictEqual({
      kind: "flop",
      styp: "CNCL",
      blocks: [
        {
          flid: "900103",
          scalars: {
            CNCL: null,
            FDIV: null,
            "FDIV@DDES": null,
            "FDIV@DDIR": null,
            FRET: null,
            "FRET@REID": "R1",
            FLAB: "Y",
            "FLAB@ARES": "bird strike",
          },
          collections: {
            GTDT: [],
            DELY: [
              { key: "93", values: { "@CODE": "93", "@DURA": "01:10", "#text": null } },
              { key: "41", values: { "@CODE": "41", "#text": "ATC" } },
            ],
            CKDT: [{ key: "3", values: { CHKC: null, PCOT: "2026-03-05T06:00" } }],
          },
        },
      ],
    });
  });

  it("keeps a scalar apart: absent, <X/>, <X></X>, whitespace only, a value", () => {
    expect(block("").scalars).not.toHaveProperty("CNCL");
    expect(block("<CNCL/>").scalars).toStrictEqual({ CNCL: null });
    expect(block("<CNCL></CNCL>").scalars).toStrictEqual({ CNCL: null });
    expect(block("<CNCL> \n </CNCL>").scalars).toStrictEqual({ CNCL: null });
    expect(block("<CNCL> 05MAR261200 </CNCL>").scalars).toStrictEqual({ CNCL: "2026-03-05T12:00" });
  });

  it("keeps attributes apart: a present element leaves its absent attributes unknown", () => {
    expect(block("<FDIV DDES='SHA'/>").scalars).toStrictEqual({ FDIV: null, "FDIV@DDES": "SHA" });
    expect(block("<FDIV DDES=''>Y</FDIV>").scalars).toStrictEqual({ FDIV: "Y", "FDIV@DDES": null });
    expect(block("<FDIV>Y</FDIV>").scalars).toStrictEqual({ FDIV: "Y" });
    expect(block("<FRET></FRET>").scalars).toStrictEqual({ FRET: null, "FRET@REID": null });
    expect(block("<FRET OTHER='1'/>").scalars).toStrictEqual({ FRET: null, "FRET@REID": null });
  });

  it("keeps a collection apart: absent, cleared, rows; and inside rows, absent vs empty fields", () => {
    expect(block("").collections).not.toHaveProperty("GTDT");
    expect(block("<GTDT/>").collections).toStrictEqual({ GTDT: [] });
    expect(block("<GTDT></GTDT><GTDT> </GTDT>").collections).toStrictEqual({ GTDT: [] });
    expect(block("<GTDT GTNO='2'/>").collections).toStrictEqual({ GTDT: [{ key: "2", values: {} }] });
    expect(block("<GTDT GTNO='1'><GATE/></GTDT><GTDT GTNO='2'><GATE>B2</GATE></GTDT>").collections).toStrictEqual({
      GTDT: [
        { key: "1", values: { GATE: null } },
        { key: "2", values: { GATE: "B2" } },
      ],
    });
  });

  it("reads rows wherever they sit in the block and ignores unknown elements and row children", () => {
    expect(block("<ROUT RTNO='1'><APCD>PEK</APCD><ZZZZ>1</ZZZZ></ROUT><ZZZZ/><ACFT>333</ACFT><ROUT RTNO='2'><APCD>SHA</APCD></ROUT>")).toStrictEqual({
      flid: "900101",
      scalars: { ACFT: "333" },
      collections: {
        ROUT: [
          { key: "1", values: { APCD: "PEK" } },
          { key: "2", values: { APCD: "SHA" } },
        ],
      },
    });
  });
});

describe("flight records: values outside their domain → PROTOCOL naming element and FLID", () => {
  it.each([
    ["<ESTT>32MAR261200</ESTT>", "ESTT"],
    ["<ESTT>05XYZ261200</ESTT>", "ESTT"],
    ["<ESTT>05MAR262400</ESTT>", "ESTT"],
    ["<SODT>29FEB251200</SODT>", "SODT"],
    ["<ESTT>202603051200</ESTT>", "ESTT"],
    ["<MVIN>X</MVIN>", "MVIN"],
    ["<MVIN>d</MVIN>", "MVIN"],
    ["<FLIN>DI</FLIN>", "FLIN"],
    ["<PAXC>12a</PAXC>", "PAXC"],
    ["<PAXC>-3</PAXC>", "PAXC"],
    ["<CNCL>yes</CNCL>", "CNCL"],
    ["<DELY CODE='81' DURA='0160'/>", "DURA"],
    ["<DELY CODE='81' STRT='soon'/>", "STRT"],
    ["<GTDT GTNO='1'><PGOT>later</PGOT></GTDT>", "PGOT"],
    ["<ERUT RTNO='1'><SADC>1d</SADC></ERUT>", "SADC"],
    ["<ERUT RTNO='1'><SDDC>+-1</SDDC></ERUT>", "SDDC"],
    ["<CHOT CSNO='1'><CHID>IN</CHID></CHOT>", "CHID"],
    ["<PORT><POID>O</POID><POTM>soon</POTM></PORT>", "PORT@O"],
  ])("%s", (inner, element) => {
    const r = flop(inner);
    expect(r).toMatchObject({ ok: false, errorClass: "PROTOCOL", meta: { type: "FLOP", styp: "TEST" } });
    expect(!r.ok && r.reason).toContain(element);
    expect(!r.ok && r.reason).toContain("900101");
  });

  it("normalizes values in their domain", () => {
    expect(block("<PAXC>007</PAXC><MAXP>000</MAXP><MVIN> A </MVIN><ESTT>29feb241200</ESTT><FLIN>R</FLIN><VIPP>02</VIPP>").scalars).toStrictEqual({
      PAXC: "7",
      MAXP: "0",
      MVIN: "A",
      ESTT: "2024-02-29T12:00",
      FLIN: "R",
      VIPP: "2",
    });
  });

  it("accepts numeric times only with numericTimeTolerance", () => {
    expect(block("<ESTT>202603051200</ESTT><ACTT>20260305121559</ACTT>", { numericTimeTolerance: true }).scalars).toStrictEqual({
      ESTT: "2026-03-05T12:00",
      ACTT: "2026-03-05T12:15",
    });
    expect(flop("<ESTT>20260305120060</ESTT>", { numericTimeTolerance: true })).toMatchObject({ errorClass: "PROTOCOL" });
  });
});

describe("flight records: structure", () => {
  it.each([
    ["<GTDT><GATE>A1</GATE></GTDT>", "without its key attribute GTNO"],
    ["<GTDT GTNO=' '><GATE>A1</GATE></GTDT>", "without its key attribute GTNO"],
    ["<GTDT OTHER='1'/>", "without its key attribute GTNO"],
    ["<GTDT GTNO='1'/><GTDT GTNO='1'/>", "duplicate GTDT key"],
    ["<GTDT/><GTDT GTNO='1'/>", "mixed"],
    ["<DELY CODE='1'/><DELY/>", "mixed"],
    ["<DELY>ATC</DELY>", "without its key attribute CODE"],
    ["<DELY CODE='81'/><DELY CODE=' 81 '/>", "duplicate DELY key"],
    ["<SRVT><SRQT>1</SRQT></SRVT>", "without its key element SRTC"],
    ["<SRVT><SRTC> </SRTC></SRVT>", "without its key element SRTC"],
    ["<SRVT><SRTC>A</SRTC><SRTC>B</SRTC></SRVT>", "more than one SRTC"],
    ["<VIPF><VPCD>V1</VPCD><VIPT><VTQY>1</VTQY></VIPT></VIPF>", "without its key element VSCD"],
    ["<VIPF><VPCD>V1</VPCD><VIPT><VSCD>S</VSCD></VIPT><VIPT><VSCD>S</VSCD></VIPT></VIPF>", "duplicate VIPT key \"V1/S\""],
    ["<PORT><POTM>05MAR260700</POTM></PORT>", "POID \"\" is not one of O|C"],
    ["<PORT><POID>X</POID></PORT>", "POID \"X\" is not one of O|C"],
    ["<PORT><POID>O</POID></PORT><PORT><POID>O</POID></PORT>", "two PORT elements for POID O"],
    ["<ESTT>05MAR261200</ESTT><ESTT>05MAR261300</ESTT>", "ESTT occurs more than once"],
    ["<FFID>A</FFID><FFID>B</FFID>", "FFID occurs more than once"],
    ["<GTDT GTNO='1'><GATE>A</GATE><GATE>B</GATE></GTDT>", "GATE occurs more than once"],
  ])("%s → PROTOCOL (%s)", (inner, reason) => {
    const r = flop(inner);
    expect(r).toMatchObject({ ok: false, errorClass: "PROTOCOL" });
    expect(!r.ok && r.reason).toContain(reason);
  });

  it.each([
    ["<ESTT><V>05MAR261200</V></ESTT>", "ESTT holds child elements"],
    ["<GTDT GTNO='1'><GATE><V/></GATE></GTDT>", "GATE holds child elements"],
    ["<FLOP><FLID>2</FLID></FLOP>", "FLOP nested inside a FLOP"],
  ])("%s → CODEC_ERROR (%s), meta kept", (inner, reason) => {
    const r = flop(inner);
    expect(r).toMatchObject({ ok: false, errorClass: "CODEC_ERROR", meta: { type: "FLOP" } });
    expect(!r.ok && r.reason).toContain(reason);
  });

  it("takes CDATA and entity references as text", () => {
    expect(block("<REMC><![CDATA[a<b]]> &amp; c&#x4E2D;</REMC>").scalars).toStrictEqual({ REMC: "a<b & c中" });
  });
});
