import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import type { FlightRecord } from "../../src/model/flight-record.js";
import { msg } from "./sis-fixtures.js";

const REQUIRED = "<ALCD>CZ</ALCD><FLNO>CZ3101</FLNO><MVIN>D</MVIN><SODT>05MAR260800</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>321</ACFT>";

/** The one record of a SCHD/DNLD whose FLTR holds `inner` after the required fields. */
function record(inner: string): FlightRecord {
  const r = decodeMessage(msg("SCHD", "DNLD", `<SCHD><RECS>1</RECS><FLTR><FLID>900101</FLID>${REQUIRED}${inner}</FLTR></SCHD>`));
  if (!r.ok || r.message.body.kind !== "snapshot") throw new Error(`expected a snapshot, got ${JSON.stringify(r)}`);
  const [first] = r.message.body.body.flights;
  if (first === undefined) throw new Error("no record");
  return first;
}

const refused = (inner: string) => decodeMessage(msg("SCHD", "DNLD", `<SCHD><RECS>1</RECS><FLTR><FLID>900101</FLID>${REQUIRED}${inner}</FLTR></SCHD>`));

describe("the flight schema of WIRE.md, decoded", () => {
  it("ERUT SADC/SDDC are signed day offsets: a DNLD carrying them decodes (it used to be refused whole)", () => {
    const erut = record(
      "<ERUT RTNO='1'><APCD>CAN</APCD><SCDT>05MAR260800</SCDT><SDDC>+0</SDDC></ERUT>" +
        "<ERUT RTNO='2'><APCD>PEK</APCD><SCAT>06MAR260110</SCAT><SADC>+1</SADC></ERUT>" +
        "<ERUT RTNO='3'><APCD>URC</APCD><SADC>-02</SADC><SDDC>3</SDDC></ERUT><ERUT RTNO='4'><SADC/></ERUT>",
    ).collections.ERUT;
    expect(erut).toStrictEqual([
      { key: "1", values: { APCD: "CAN", SCDT: "2026-03-05T08:00", SDDC: "+0" } },
      { key: "2", values: { APCD: "PEK", SCAT: "2026-03-06T01:10", SADC: "+1" } },
      { key: "3", values: { APCD: "URC", SADC: "-2", SDDC: "+3" } },
      { key: "4", values: { SADC: null } },
    ]);
    expect(refused("<ERUT RTNO='1'><SADC>06MAR26</SADC></ERUT>")).toMatchObject({ ok: false, errorClass: "PROTOCOL" });
  });

  it("DELY rows are keyed by @CODE, which stays in the row as sent (trimmed)", () => {
    expect(record("<DELY CODE='93' STRT='05MAR260815' DURA='0110'>crew</DELY><DELY CODE=' 81 '/>").collections.DELY).toStrictEqual([
      { key: "93", values: { "@CODE": "93", "@STRT": "2026-03-05T08:15", "@DURA": "01:10", "#text": "crew" } },
      { key: "81", values: { "@CODE": "81", "#text": null } },
    ]);
  });

  it("SRVT and VIPF are keyed by a child element, which stays a field of the row", () => {
    const r = record(
      "<SRVT><SRTC>WCHR</SRTC><SRQT>02</SRQT><SRST>05MAR260700</SRST><SRET/><SRPR>1001</SRPR><SANR>X1</SANR><SARR>late</SARR></SRVT>" +
        "<SRVT><SRQT>1</SRQT><SRTC> MEAL </SRTC></SRVT>" +
        "<VIPF><VPCD>V9</VPCD><VFES>3</VFES></VIPF>",
    );
    expect(r.collections.SRVT).toStrictEqual([
      {
        key: "WCHR",
        values: { SRTC: "WCHR", SRQT: "2", SRST: "2026-03-05T07:00", SRET: null, SRPR: "1001", SANR: "X1", SARR: "late" },
      },
      { key: "MEAL", values: { SRTC: "MEAL", SRQT: "1" } },
    ]);
    expect(r.collections.VIPF).toStrictEqual([{ key: "V9", values: { VPCD: "V9", VFES: "3" } }]);
  });

  it("VIPT inside VIPF rows is the flat VIPT collection keyed <VPCD>/<VSCD>, stated whenever VIPF is", () => {
    const r = record(
      "<VIPF><VPCD>V1</VPCD><VFES>2</VFES>" +
        "<VIPT><VSCD>CAR</VSCD><VTQY>1</VTQY><VTST>05MAR260600</VTST><VTET>05MAR260630</VTET></VIPT>" +
        "<VIPT><VSCD>LNG</VSCD><VTQY/></VIPT></VIPF>" +
        "<VIPF><VPCD>V2</VPCD><VIPT/></VIPF><VIPF><VPCD>V3</VPCD><VIPT><VSCD>CAR</VSCD></VIPT></VIPF>",
    );
    expect(r.collections.VIPF).toStrictEqual([
      { key: "V1", values: { VPCD: "V1", VFES: "2" } },
      { key: "V2", values: { VPCD: "V2" } },
      { key: "V3", values: { VPCD: "V3" } },
    ]);
    expect(r.collections.VIPT).toStrictEqual([
      { key: "V1/CAR", values: { VPCD: "V1", VSCD: "CAR", VTQY: "1", VTST: "2026-03-05T06:00", VTET: "2026-03-05T06:30" } },
      { key: "V1/LNG", values: { VPCD: "V1", VSCD: "LNG", VTQY: null } },
      { key: "V3/CAR", values: { VPCD: "V3", VSCD: "CAR" } },
    ]);
    expect(record("<VIPF><VPCD>V1</VPCD></VIPF>").collections).toStrictEqual({ VIPF: [{ key: "V1", values: { VPCD: "V1" } }], VIPT: [] });
    expect(record("<VIPF/>").collections).toStrictEqual({ VIPF: [], VIPT: [] });
    expect(record("").collections).toStrictEqual({});
    // A VIPT outside a VIPF row is not a flight element: ignored.
    expect(record("<VIPT><VSCD>CAR</VSCD></VIPT>").collections).toStrictEqual({});
  });

  it("CHOT rows are one chocks event each (CHTM, CHID ON|OFF, CHST), as in the shared fixture 09", () => {
    expect(
      record("<CHOT CSNO='1'><CHTM>05mar260741</CHTM><CHID>ON</CHID><CHST>210</CHST></CHOT><CHOT CSNO='2'><CHTM>05MAR260806</CHTM><CHID>OFF</CHID><CHST>210</CHST></CHOT>").collections
        .CHOT,
    ).toStrictEqual([
      { key: "1", values: { CHTM: "2026-03-05T07:41", CHID: "ON", CHST: "210" } },
      { key: "2", values: { CHTM: "2026-03-05T08:06", CHID: "OFF", CHST: "210" } },
    ]);
  });

  it("ABTM rows carry the bridge, the operation and its time; PSDT rows the push and tractor fields", () => {
    const r = record(
      "<ABTM ASNO='1'><ABDG>B12</ABDG><ABOP>A</ABOP><AOTM>05MAR260745</AOTM></ABTM>" +
        "<PSDT PSNO='1'><PSST>210</PSST><PSTM>05MAR260805</PSTM><PSID>P</PSID><TRTM>05MAR260803</TRTM></PSDT>",
    );
    expect(r.collections.ABTM).toStrictEqual([{ key: "1", values: { ABDG: "B12", ABOP: "A", AOTM: "2026-03-05T07:45" } }]);
    expect(r.collections.PSDT).toStrictEqual([
      { key: "1", values: { PSST: "210", PSTM: "2026-03-05T08:05", PSID: "P", TRTM: "2026-03-05T08:03" } },
    ]);
  });

  it("PORT{POTM, POID} sets the door open (PORT@O) or close (PORT@C) time; an empty POTM clears it; <PORT/> clears both", () => {
    expect(record("<PORT><POID>O</POID><POTM>05MAR260730</POTM></PORT><PORT><POTM>05MAR260755</POTM><POID> C </POID></PORT>").scalars).toMatchObject({
      "PORT@O": "2026-03-05T07:30",
      "PORT@C": "2026-03-05T07:55",
    });
    const open = record("<PORT><POID>O</POID><POTM/></PORT>").scalars;
    expect(open["PORT@O"]).toBeNull();
    expect(open).not.toHaveProperty("PORT@C");
    expect(record("<PORT><POID>C</POID></PORT>").scalars["PORT@C"]).toBeNull();
    const cleared = record("<PORT/>").scalars;
    expect([cleared["PORT@O"], cleared["PORT@C"]]).toStrictEqual([null, null]);
  });

  it("decodes the new scalars by kind; months in any case; FLIN R (regional)", () => {
    const times = ["IEST", "APPT", "LACL", "FINT", "EGSR", "EGST", "PEDT", "PADT", "NEAT", "NAAT"];
    const r = record(
      times.map((t, i) => `<${t}>05${["MAR", "mar", "Mar"][i % 3]}2607${String(10 + i)}</${t}>`).join("") + "<VIPP>3</VIPP><VIPR>A</VIPR><LBNO>L1</LBNO><LBWT>120</LBWT>",
    );
    expect(r.scalars).toMatchObject({
      ...Object.fromEntries(times.map((t, i) => [t, `2026-03-05T07:${String(10 + i)}`])),
      VIPP: "3",
      VIPR: "A",
      LBNO: "L1",
      LBWT: "120",
    });
    const regional = decodeMessage(msg("SCHD", "DNLD", `<SCHD><RECS>1</RECS><FLTR><FLID>1</FLID>${REQUIRED.replace("<FLIN>D</FLIN>", "<FLIN>R</FLIN>")}</FLTR></SCHD>`));
    expect(regional.ok && regional.message.body.kind === "snapshot" && regional.message.body.body.flights[0]?.scalars.FLIN).toBe("R");
  });

  it("REMC has the width WIRE.md gives (80): characters are counted, not bytes or UTF-16 units; trimmed first; one more is PROTOCOL", () => {
    expect(record(`<REMC> ${"中".repeat(40)}${"😀".repeat(40)} </REMC>`).scalars.REMC).toBe(`${"中".repeat(40)}${"😀".repeat(40)}`);
    expect(refused(`<REMC>${"a".repeat(81)}</REMC>`)).toMatchObject({ ok: false, errorClass: "PROTOCOL", reason: "FLID 900101: REMC is 81 characters, over its width of 80" });
    expect(refused(`<REMC>${"😀".repeat(81)}</REMC>`)).toMatchObject({ ok: false, errorClass: "PROTOCOL", reason: expect.stringContaining("REMC is 81 characters") });
  });
});
