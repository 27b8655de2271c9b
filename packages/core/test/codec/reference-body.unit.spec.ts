import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { DEFAULT_CODEC_OPTIONS } from "../../src/codec/decode-result.js";
import { REFERENCE_SCHEMAS, REFERENCE_TYPES } from "../../src/model/reference-schema.js";
import { fixture, msg } from "./sis-fixtures.js";

const META = { sndr: "AODB", seqn: 1, dttm: "20260305020000" };

const bodyOf = (raw: string) => {
  const r = decodeMessage(raw);
  if (!r.ok) throw new Error(`expected ok, got ${r.errorClass}: ${r.reason}`);
  return r.message.body;
};

/** The upstream layout: RECS directly under MSG, then the records named like the TYPE. */
const ref = (type: string, styp: string, records: string, recs: string | null = "1") => msg(type, styp, `${recs === null ? "" : `<RECS>${recs}</RECS>`}${records}`);

describe("reference data in the upstream layout (WIRE.md \"Reference data\")", () => {
  it("the 23 upstream types are the default reference types, each with its key element", () => {
    expect(REFERENCE_TYPES).toHaveLength(23);
    expect([...REFERENCE_TYPES].sort()).toEqual(
      ["SLST", "GLST", "BLST", "CLST", "TLST", "ABDG", "CHLT", "PLST", "AIRC", "REGN", "AIRL", "ARPT", "CITY", "COUL", "REGL", "ABNR", "DLYL", "HLTR", "ORGN", "STTS", "FLTL", "VIPL", "VIPS"].sort(),
    );
    expect(DEFAULT_CODEC_OPTIONS.referenceTypes).toEqual(REFERENCE_TYPES);
    expect(Object.fromEntries([...REFERENCE_SCHEMAS.values()].map((s) => [s.type, s.key]))).toMatchObject({ AIRL: "ITOP", ARPT: "ITCD", REGN: "RNUM", ORGN: "OGID", ABDG: "ABCD", COUL: "COUC", REGL: "REGC" });
  });

  it("AIRL DNLD (fixture 10): repeated TRML with attributes, empty TRML and OGRP, SUBC rows, Chinese text", () => {
    expect(bodyOf(fixture("10-ref-airl-dnld.xml"))).toStrictEqual({
      kind: "reference",
      rtype: "AIRL",
      styp: "DNLD",
      recs: 2,
      records: [
        {
          rkey: "K4",
          fields: {
            ICOP: "KFR",
            ONAM: "KESTREL FREIGHT",
            ONMC: "红隼货运",
            CTRY: "CN",
            DORI: "I",
            TRML: [
              { terminal: "T2", mvin: "A", flin: "I" },
              { terminal: "T1", mvin: "D", flin: "D" },
            ],
            OGRP: ["SKY CARGO GROUP"],
            SUBC: [{ CODE: "401", NAME: "KESTREL REGIONAL", NAMC: "红隼支线" }],
          },
        },
        { rkey: "K5", fields: { ICOP: "KLN", ONAM: "KOALA LINK", ONMC: "考拉联航", CTRY: "AU", DORI: "I", TRML: [], OGRP: [] } },
      ],
    });
  });

  it("a key-only ARPT DEL (fixture 11) is a valid record", () => {
    expect(bodyOf(fixture("11-ref-arpt-del-key-only.xml"))).toStrictEqual({ kind: "reference", rtype: "ARPT", styp: "DEL", recs: 1, records: [{ rkey: "KXA", fields: {} }] });
  });

  it("an ARPT RESP (fixture 09): the key trimmed, an empty scalar is null", () => {
    expect(bodyOf(fixture("09-arpt-resp-reference.xml"))).toStrictEqual({
      kind: "reference",
      rtype: "ARPT",
      styp: "RESP",
      recs: 2,
      records: [
        { rkey: "PEK", fields: { ICCD: "ZBAA", ANAM: "Beijing Capital" } },
        { rkey: "CAN", fields: { ICCD: "ZGGG", ANAM: null } },
      ],
    });
  });

  it("REGN (fixture 12) is reference data keyed by RNUM, RECS kept as declared although it disagrees", () => {
    expect(bodyOf(fixture("12-ref-regn-dnld.xml"))).toStrictEqual({
      kind: "reference",
      rtype: "REGN",
      styp: "DNLD",
      recs: 1,
      records: [
        { rkey: "B-5948", fields: { ITAT: "333", OWID: "1001", ACAL: "CZ", ALSC: "CSN", MAXP: "284", MFWT: "175000", MTWT: "233000" } },
        { rkey: "B-6120", fields: { ITAT: "320", OWID: "1002", ACAL: "K4", ALSC: null, MAXP: null } },
      ],
    });
  });

  it("ORGN (fixture 13): OGID kept as the text sent, OCAT* trimmed with the empty repeat dropped", () => {
    expect(bodyOf(fixture("13-ref-orgn-upd.xml"))).toMatchObject({
      styp: "UPD",
      records: [{ rkey: "0042", fields: { ONAM: "SKYPORT GROUND SERVICES", ONMC: "天港地服", OCAT: ["HDLG", "FUEL"] } }],
    });
  });

  it("ABDG (fixture 14): STND* and GATE* lists, ATHE a flag (only Y in any case is true), an all-empty list is []", () => {
    const body = bodyOf(fixture("14-ref-abdg-dnld.xml"));
    expect(body.kind === "reference" && body.records).toStrictEqual([
      { rkey: "AB101", fields: { DESC: "BRIDGE 101", CDSC: "101号廊桥", AHGT: "5.6", ATML: "T2", ATHE: true, AMNO: "2", STND: ["101", "101L"], GATE: ["A01"] } },
      { rkey: "AB102", fields: { DESC: "BRIDGE 102", ATHE: false, STND: [] } },
    ]);
  });

  it("ARPT ABBR* (fixture 15): one object by @CODE, an empty abbreviation dropped, spaces around = accepted", () => {
    const body = bodyOf(fixture("15-ref-arpt-add-abbr.xml"));
    expect(body.kind === "reference" && body.records[0]?.fields).toStrictEqual({
      ICCD: "ZKXA",
      ANAM: "KESTREL BAY",
      ANMC: "红隼湾",
      BDIS: "1240",
      CTRY: "CN",
      ACTY: "KXAC",
      ATYP: "D",
      HAUL: "S",
      ABBR: { ABR1: "KESTREL", ABR2: "红隼" },
    });
  });

  it("COUL (fixture 16): REGC* lists; RECS 5 over two records is returned, not refused", () => {
    expect(bodyOf(fixture("16-ref-coul-dnld-recs-mismatch.xml"))).toStrictEqual({
      kind: "reference",
      rtype: "COUL",
      styp: "DNLD",
      recs: 5,
      records: [
        { rkey: "CN", fields: { COUN: "CHINA", CNMC: "中国", REGC: ["EAS"] } },
        { rkey: "AU", fields: { COUN: "AUSTRALIA", CNMC: "澳大利亚", REGC: ["OCE"] } },
      ],
    });
  });

  it("BLST (fixture 17): a lowercase key kept as sent; unknown elements kept (repeated as a list, nested as a row)", () => {
    const body = bodyOf(fixture("17-ref-blst-dnld-lowercase.xml"));
    expect(body.kind === "reference" && body.records).toStrictEqual([
      { rkey: "b3a", fields: { BTNM: "BELT 3A", BNMC: "3A号转盘", BCAT: "I", BTML: "T2", BZON: ["NORTH", "HALL B"], BINF: { LEN: "72", UNIT: "m" } } },
      { rkey: "B04", fields: { BTNM: "BELT 4" } },
    ]);
  });

  it("CITY RESP (fixture 18): a 4-letter city code, no RECS at all (undefined), an ABBR of code ABR6", () => {
    expect(bodyOf(fixture("18-ref-city-resp.xml"))).toStrictEqual({
      kind: "reference",
      rtype: "CITY",
      styp: "RESP",
      recs: undefined,
      records: [{ rkey: "KXAC", fields: { ICCD: null, CNAM: "KESTREL CITY", CNMC: "红隼市", CTRY: "CN", ABBR: { ABR6: "KXC" } } }],
    });
  });

  it("fields come in the schema's order whatever the wire order; every flag shape", () => {
    const body = bodyOf(ref("CLST", "UPD", "<CLST><CTRA>yes</CTRA><CNMC>柜台</CNMC><CCOD>C01</CCOD><CTNM>DESK 1</CTNM></CLST><CLST><CCOD>C02</CCOD><CTRA></CTRA></CLST><CLST><CCOD>C03</CCOD><CTRA> y </CTRA></CLST>", "3"));
    expect(body.kind === "reference" && body.records.map((r) => r.fields)).toStrictEqual([{ CTNM: "DESK 1", CNMC: "柜台", CTRA: false }, { CTRA: null }, { CTRA: true }]);
    expect(body.kind === "reference" && Object.keys(body.records[0]!.fields)).toEqual(["CTNM", "CNMC", "CTRA"]);
  });

  it("a TRML with text but empty attributes keeps the terminal with no MVIN/FLIN; a SUBC with nothing in it is dropped", () => {
    const body = bodyOf(ref("AIRL", "ADD", '<AIRL><ITOP>K6</ITOP><TRML MVIN="" FLIN="">T3</TRML><TRML FLIN="D"/><SUBC><CODE/><NAME></NAME></SUBC><SUBC><NAME>X</NAME></SUBC></AIRL>'));
    expect(body.kind === "reference" && body.records[0]?.fields).toStrictEqual({
      TRML: [
        { terminal: "T3", mvin: null, flin: null },
        { terminal: null, mvin: null, flin: "D" },
      ],
      SUBC: [{ NAME: "X" }],
    });
  });

  it("records of another name, and RECS's place, do not matter; zero records is a valid package", () => {
    expect(bodyOf(ref("GLST", "DNLD", "<X>1</X><GLST><GCOD>A1</GCOD></GLST><RECS>1</RECS>", null))).toMatchObject({ recs: 1, records: [{ rkey: "A1", fields: {} }] });
    expect(bodyOf(ref("GLST", "DNLD", "", "0"))).toStrictEqual({ kind: "reference", rtype: "GLST", styp: "DNLD", recs: 0, records: [] });
  });

  it("a field named __proto__ stays an own property", () => {
    const body = bodyOf(ref("GLST", "DNLD", "<GLST><GCOD>A1</GCOD><__proto__>x</__proto__></GLST>"));
    expect(body.kind === "reference" && Object.getOwnPropertyNames(body.records[0]?.fields)).toEqual(["__proto__"]);
  });

  it.each([
    ["a record without its key", ref("ARPT", "ADD", "<ARPT><ICCD>ZBAA</ICCD></ARPT>"), "ARPT record 1 has no key ITCD"],
    ["an empty key", ref("ARPT", "DEL", "<ARPT><ITCD> </ITCD></ARPT>"), "has no key ITCD"],
    ["the key twice in one record", ref("ARPT", "UPD", "<ARPT><ITCD>PEK</ITCD><ITCD>CAN</ITCD></ARPT>"), "ITCD occurs more than once"],
    ["a scalar twice", ref("ARPT", "UPD", "<ARPT><ITCD>PEK</ITCD><ANAM>a</ANAM><ANAM>b</ANAM></ARPT>"), "ANAM occurs more than once"],
    ["an ABBR without CODE", ref("ARPT", "UPD", "<ARPT><ITCD>PEK</ITCD><ABBR>BJS</ABBR></ARPT>"), "has no CODE"],
    ["an ABBR code twice", ref("CITY", "UPD", '<CITY><ITCD>BJS</ITCD><ABBR CODE="ABR1">a</ABBR><ABBR CODE="ABR1">b</ABBR></CITY>'), "occurs more than once"],
    ["a RECS that is not a number", ref("ARPT", "DNLD", "", "two"), "RECS"],
    ["the old wrapper layout (the wrapper is a record without key)", msg("ARPT", "RESP", "<ARPT><RECS>1</RECS><ARPR><APC3>PEK</APC3></ARPR></ARPT>"), "has no key ITCD"],
  ])("%s → PROTOCOL, meta kept", (_, raw, reason) => {
    const r = decodeMessage(raw);
    expect(r).toMatchObject({ ok: false, errorClass: "PROTOCOL", meta: META });
    expect(!r.ok && r.reason).toContain(reason);
  });

  it("a configured reference type with no schema is a CODEC_ERROR (replayable), never a guess", () => {
    expect(decodeMessage(ref("QQQQ", "DNLD", "<QQQQ><K>1</K></QQQQ>"), { referenceTypes: ["QQQQ"] })).toMatchObject({ ok: false, errorClass: "CODEC_ERROR" });
  });

  it("a known field holding elements is a CODEC_ERROR; an unknown one nesting deeper is kept as its text", () => {
    expect(decodeMessage(ref("GLST", "UPD", "<GLST><GCOD>A1</GCOD><GTNM><X/></GTNM></GLST>"))).toMatchObject({ ok: false, errorClass: "CODEC_ERROR" });
    const body = bodyOf(ref("GLST", "UPD", "<GLST><GCOD>A1</GCOD><NOTE><P>a <B>b</B></P><P>c</P></NOTE></GLST>"));
    expect(body.kind === "reference" && body.records[0]?.fields).toStrictEqual({ NOTE: "a bc" });
  });
});
