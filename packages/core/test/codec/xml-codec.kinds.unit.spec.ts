import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { fixture, msg } from "./sis-fixtures.js";

const META = { sndr: "AODB", seqn: 1, dttm: "20260305020000" };
const FLTR = "<FLTR><FLID>7</FLID><ALCD>CZ</ALCD></FLTR>";
const bodyOf = (raw: string, options?: Parameters<typeof decodeMessage>[1]) => {
  const r = decodeMessage(raw, options);
  if (!r.ok) throw new Error(`expected ok, got ${r.errorClass}: ${r.reason}`);
  return r.message.body;
};

describe("kinds by TYPE/STYP", () => {
  it.each(["ADFT", "ADD", "UPD"])("SCHD/%s → adft, its subtype kept", (styp) => {
    expect(bodyOf(msg("SCHD", styp, `<SCHD><RECS>1</RECS>${FLTR}</SCHD>`))).toStrictEqual({
      kind: "adft",
      styp,
      body: { recs: 1, flights: [{ flid: "7", scalars: { ALCD: "CZ" }, collections: {} }] },
    });
  });

  it("SCHD/DEL → schdDel with RECS and the FLIDs only (nothing else is read, not even an invalid value)", () => {
    const body = `<SCHD><RECS>3</RECS>${FLTR}<FLTR><FLID> 8 </FLID><SODT>soon</SODT><GTDT/></FLTR></SCHD>`;
    expect(bodyOf(msg("SCHD", "DEL", body))).toStrictEqual({ kind: "schdDel", body: { recs: 3, flids: ["7", "8"] } });
    expect(bodyOf(msg("SCHD", "DEL", "<SCHD><FLTR><FLID>9</FLID></FLTR></SCHD>"))).toStrictEqual({ kind: "schdDel", body: { recs: undefined, flids: ["9"] } });
    expect(decodeMessage(msg("SCHD", "DEL", "<SCHD><RECS>1</RECS><FLTR><FLID>x</FLID></FLTR></SCHD>"))).toMatchObject({ ok: false, errorClass: "PROTOCOL" });
  });

  it("SCHD with RECS missing → recs undefined (the processor decides)", () => {
    expect(bodyOf(msg("SCHD", "DNLD", `<SCHD>${FLTR}</SCHD>`))).toMatchObject({ kind: "snapshot", body: { recs: undefined } });
  });

  it("SCHD with another subtype → unsupported, body not read", () => {
    expect(bodyOf(msg("SCHD", "ABCD", "<SCHD><RECS>x</RECS></SCHD>"))).toStrictEqual({ kind: "unsupported", type: "SCHD", styp: "ABCD" });
  });

  it.each([
    ["SCHD", "DNLD", "<FLOP/>", "SCHD body missing"],
    ["SCHD", "RESP", "<SCHD><RECS>1</RECS></SCHD><SCHD><RECS>1</RECS></SCHD>", "more than one SCHD"],
    ["SCHD", "DNLD", "<SCHD><RECS>three</RECS></SCHD>", "RECS"],
    ["SCHD", "DNLD", "<SCHD><RECS></RECS></SCHD>", "RECS"],
    ["SCHD", "DNLD", "<SCHD><RECS>-1</RECS></SCHD>", "RECS"],
    ["SCHD", "ADFT", "<SCHD><RECS>1</RECS><FLTR><ALCD>CZ</ALCD></FLTR></SCHD>", "FLTR without FLID"],
    ["FLOP", "ESTT", "<SCHD/>", "FLOP body missing"],
    ["FLOP", "ESTT", "<FLOP><ESTT>05MAR261200</ESTT></FLOP>", "FLOP without FLID"],
    ["FLOP", "ESTT", "<FLOP><FLID>12A</FLID></FLOP>", "FLID"],
    ["FLOP", "ESTT", "<FLOP><FLID></FLID></FLOP>", "FLID"],
    ["FLOP", "ESTT", "<FLOP><FLID>1</FLID><FLID>2</FLID></FLOP>", "FLID"],
    ["FLOP", "FDEL", "<FLOP><FLID>5</FLID><FDEL>yes</FDEL></FLOP>", "FDEL is not empty"],
    ["FLOP", "FDEL", "<FLOP><FLID>5</FLID><FDEL><X/></FDEL></FLOP>", "FDEL is not empty"],
    ["FLOP", "FDEL", "<FLOP><FLID>5</FLID><FDEL/></FLOP><FLOP><FLID>6</FLID><FDEL/></FLOP>", "one flight"],
    ["FLOP", "FDEL", "<FLOP><FFID>X</FFID><FDEL/></FLOP>", "FLOP without FLID"],
    ["ARPT", "UPD", "<RECS>1</RECS><ARPT><ICCD>ZBAA</ICCD></ARPT>", "has no key ITCD"],
    ["ARPT", "ADD", "<ARPT><ITCD> </ITCD></ARPT>", "has no key ITCD"],
  ])("%s/%s with %s → PROTOCOL (%s), meta kept", (type, styp, body, reason) => {
    const r = decodeMessage(msg(type, styp, body));
    expect(r).toMatchObject({ ok: false, errorClass: "PROTOCOL", meta: { ...META, type, styp } });
    expect(!r.ok && r.reason).toContain(reason);
  });

  it("FLOP/FDEL: ffid absent when not sent, null when empty; an FDEL marker is optional", () => {
    expect(bodyOf(msg("FLOP", "FDEL", "<FLOP><FLID>5</FLID><FDEL></FDEL></FLOP>"))).toStrictEqual({ kind: "fdel", flid: "5" });
    expect(bodyOf(msg("FLOP", "FDEL", "<FLOP><FLID>5</FLID><FFID/><FDEL/></FLOP>"))).toStrictEqual({ kind: "fdel", flid: "5", ffid: null });
    expect(bodyOf(msg("FLOP", "FDEL", "<FLOP><FLID> 5 </FLID></FLOP>"))).toStrictEqual({ kind: "fdel", flid: "5" });
  });

  it("FLOP with several blocks → one record per block, in order; unknown elements ignored", () => {
    expect(bodyOf(fixture("07-flop-estt-two-blocks.xml"))).toStrictEqual({
      kind: "flop",
      styp: "ESTT",
      blocks: [
        { flid: "900103", scalars: { ESTT: "2026-03-05T14:55" }, collections: {} },
        { flid: "900101", ffid: null, scalars: { ESTT: null }, collections: {} },
      ],
    });
  });

  it("FLOP with a subtype outside the update matrix → unsupported, body not read, unless the policy processes it", () => {
    expect(bodyOf(msg("FLOP", "ZZZZ", "<FLOP><FLID>x</FLID></FLOP>"))).toStrictEqual({ kind: "unsupported", type: "FLOP", styp: "ZZZZ" });
    expect(bodyOf(msg("FLOP", "ZZZZ", "<FLOP><FLID>1</FLID></FLOP>"), { typePolicy: { "FLOP/ZZZZ": "process" } })).toStrictEqual({
      kind: "flop",
      styp: "ZZZZ",
      blocks: [{ flid: "1", scalars: {}, collections: {} }],
    });
  });

  it.each(["LDM", "RSTA", "EROR", "SCHS"])("%s → ignorable by default, body not read", (type) => {
    expect(bodyOf(msg(type, "RESP", "<ANY><RECS>not a number</RECS></ANY>"))).toStrictEqual({ kind: "ignorable", type });
  });

  it("a reference reply → reference records in the upstream layout (RECS under MSG, records named like the TYPE)", () => {
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

  it("REGN is reference data by default, not ignorable (WIRE.md \"Kinds\")", () => {
    expect(bodyOf(msg("REGN", "DNLD", "<RECS>1</RECS><REGN><RNUM>B-5948</RNUM><ITAT>333</ITAT></REGN>"))).toStrictEqual({
      kind: "reference",
      rtype: "REGN",
      styp: "DNLD",
      recs: 1,
      records: [{ rkey: "B-5948", fields: { ITAT: "333" } }],
    });
  });

  it("a reference type with another subtype, or an unknown type → unsupported (ok)", () => {
    expect(bodyOf(msg("ARPT", "XYZ", ""))).toStrictEqual({ kind: "unsupported", type: "ARPT", styp: "XYZ" });
    expect(bodyOf(msg("QQQ", "RESP", ""))).toStrictEqual({ kind: "unsupported", type: "QQQ", styp: "RESP" });
    expect(bodyOf(msg("RQFD", "NONE", "<RQFD/>"))).toStrictEqual({ kind: "unsupported", type: "RQFD", styp: "NONE" });
    expect(bodyOf(msg("schd", "DNLD", ""))).toStrictEqual({ kind: "unsupported", type: "schd", styp: "DNLD" });
  });

  it("takes the type policy and the reference types from the options", () => {
    const options = { typePolicy: { QQQ: "ignore", LDM: "unsupported" } as const, referenceTypes: ["REGN"] };
    expect(bodyOf(msg("QQQ", "RESP", "<QQQ><RECS>x</RECS></QQQ>"), options)).toStrictEqual({ kind: "ignorable", type: "QQQ" });
    expect(bodyOf(msg("REGN", "DNLD", "<RECS>0</RECS>"), options)).toMatchObject({ kind: "reference", rtype: "REGN", styp: "DNLD", records: [] });
    expect(bodyOf(msg("ARPT", "DNLD", "<ARPT/>"), options)).toStrictEqual({ kind: "unsupported", type: "ARPT", styp: "DNLD" });
    expect(bodyOf(msg("LDM", "NONE", ""), options)).toStrictEqual({ kind: "unsupported", type: "LDM", styp: "NONE" });
    expect(bodyOf(msg("LDM", "NONE", ""), { typePolicy: undefined, limits: undefined })).toStrictEqual({ kind: "ignorable", type: "LDM" });
  });

  it("ignores a FLOP subtype by its own setting (ignored:FLOP/<STYP>) or the whole type, body not read", () => {
    const broken = "<FLOP><FLID>x</FLID></FLOP>";
    expect(bodyOf(msg("FLOP", "ESTT", broken), { typePolicy: { "FLOP/ESTT": "ignore" } })).toStrictEqual({ kind: "ignorable", type: "FLOP", styp: "ESTT" });
    expect(bodyOf(msg("FLOP", "ESTT", broken), { typePolicy: { FLOP: "ignore" } })).toStrictEqual({ kind: "ignorable", type: "FLOP" });
    expect(bodyOf(msg("FLOP", "ESTT", broken), { typePolicy: { FLOP: "unsupported" } })).toStrictEqual({ kind: "unsupported", type: "FLOP", styp: "ESTT" });
    // The subtype's own setting wins over the type's.
    expect(bodyOf(msg("FLOP", "ESTT", "<FLOP><FLID>1</FLID></FLOP>"), { typePolicy: { FLOP: "ignore", "FLOP/ESTT": "process" } })).toMatchObject({ kind: "flop" });
  });

  it("SCHD and the reference types are unsupported when the policy says so (the body is not read)", () => {
    expect(bodyOf(msg("SCHD", "DNLD", "<SCHD><RECS>x</RECS></SCHD>"), { typePolicy: { SCHD: "unsupported" } })).toStrictEqual({ kind: "unsupported", type: "SCHD", styp: "DNLD" });
    expect(bodyOf(msg("SCHD", "DNLD", "<SCHD><RECS>x</RECS></SCHD>"), { typePolicy: { SCHD: "ignore" } })).toStrictEqual({ kind: "ignorable", type: "SCHD" });
  });
});
