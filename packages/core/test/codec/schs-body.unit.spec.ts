import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { fixture, msg } from "./sis-fixtures.js";

/** SCHS is ignored by default; these tests decode it as an operator who processes it would. */
const PROCESS = { typePolicy: { SCHS: "process" } } as const;
const schs = (flights: string, header = "<SNAM>S</SNAM><APCD>CAN</APCD><SDAT>29MAR26</SDAT><EDAT>24OCT26</EDAT><RECS>1</RECS>") =>
  decodeMessage(msg("SCHS", "DNLD", `<SCHS>${header}${flights}</SCHS>`), PROCESS);
const FLTR = (inner: string) => `<FLTR><ALCD>CZ</ALCD><FLNO>CZ1</FLNO>${inner}</FLTR>`;

describe("SCHS: the seasonal schedule (WIRE.md \"Seasonal schedule\")", () => {
  it("is ignored by default: SKIPPED ignored:SCHS material, body not read", () => {
    const r = decodeMessage(fixture("20-schs-dnld.xml"));
    expect(r.ok && r.message.body).toStrictEqual({ kind: "ignorable", type: "SCHS" });
    expect(decodeMessage(msg("SCHS", "DNLD", "<SCHS><SDAT>not a date</SDAT></SCHS>"))).toMatchObject({ ok: true, message: { body: { kind: "ignorable" } } });
  });

  it("decodes the shared example field by field when processed (HHMM routes, an empty SCDT, signed day offsets)", () => {
    const r = decodeMessage(fixture("20-schs-dnld.xml"), PROCESS);
    expect(r).toStrictEqual({
      ok: true,
      message: {
        meta: { sndr: "AODB", seqn: 610204, dttm: "20260305040000", type: "SCHS", styp: "DNLD" },
        body: {
          kind: "seasonal",
          styp: "DNLD",
          body: {
            snam: "Summer",
            apcd: "CAN",
            sdat: "2026-03-29",
            edat: "2026-10-24",
            recs: 1,
            flights: [
              {
                fields: {
                  ALCD: "CZ",
                  FLNO: "CZ3101",
                  MVIN: "D",
                  STDT: "2026-03-29",
                  EDDT: "2026-10-24",
                  DYOP: "1030507",
                  SCHT: "08:00",
                  FLTY: "W",
                  FLIN: "D",
                  ACFT: "321",
                },
                rout: [{ key: "1", values: { APCD: "PEK", SCAT: "11:10", SCDT: null } }],
                erut: [
                  { key: "1", values: { APCD: "CAN", SCDT: "08:00", SDDC: "+0" } },
                  { key: "2", values: { APCD: "PEK", SCAT: "11:10", SADC: "+0" } },
                ],
              },
            ],
          },
        },
      },
    });
  });

  it("reads every record field, ERUT times as HHMM or ddMMMyyHHmm and day offsets with their sign", () => {
    const all =
      "<MVIN>A</MVIN><STDT>01apr26</STDT><EDDT>30APR26</EDDT><DYOP>0000067</DYOP><SCHT>2359</SCHT><FLTY>W</FLTY><FLIN>R</FLIN>" +
      "<ACFT>333</ACFT><RENO>B-1</RENO><TAOP>CZ</TAOP><TAFL>CZ2</TAFL><TRML>T2</TRML><MAXP>0300</MAXP><CSOP>MU</CSOP><CSFT>MU9</CSFT><UNKN>x</UNKN>" +
      '<ERUT RTNO="1"><APCD>PEK</APCD><SCDT>05APR262330</SCDT><SDDC>-1</SDDC></ERUT><ERUT RTNO="2"><APCD>CAN</APCD><SCAT>0105</SCAT><SADC>+01</SADC></ERUT>';
    const r = schs(FLTR(all));
    expect(r.ok && r.message.body.kind === "seasonal" && r.message.body.body.flights[0]).toStrictEqual({
      fields: {
        ALCD: "CZ",
        FLNO: "CZ1",
        MVIN: "A",
        STDT: "2026-04-01",
        EDDT: "2026-04-30",
        DYOP: "0000067",
        SCHT: "23:59",
        FLTY: "W",
        FLIN: "R",
        ACFT: "333",
        RENO: "B-1",
        TAOP: "CZ",
        TAFL: "CZ2",
        TRML: "T2",
        MAXP: "300",
        CSOP: "MU",
        CSFT: "MU9",
      },
      erut: [
        { key: "1", values: { APCD: "PEK", SCDT: "2026-04-05T23:30", SDDC: "-1" } },
        { key: "2", values: { APCD: "CAN", SCAT: "01:05", SADC: "+1" } },
      ],
    });
  });

  it("keeps absent and empty apart; one empty ROUT clears; no records is a valid package", () => {
    const r = schs(FLTR("<RENO/><ROUT/>"), "<SNAM></SNAM><RECS>0</RECS>");
    expect(r.ok && r.message.body.kind === "seasonal" && r.message.body.body).toStrictEqual({
      snam: null,
      recs: 0,
      flights: [{ fields: { ALCD: "CZ", FLNO: "CZ1", RENO: null }, rout: [] }],
    });
  });

  it.each([
    ["<SCHS/><SCHS/>", "more than one SCHS body"],
    ["<SCHD/>", "SCHS body missing"],
    ["<SCHS><SDAT>2026-03-29</SDAT></SCHS>", "SDAT"],
    ["<SCHS><SNAM>a</SNAM><SNAM>b</SNAM></SCHS>", "SNAM occurs more than once"],
    ["<SCHS><RECS>one</RECS></SCHS>", "RECS"],
    [`<SCHS>${FLTR("<DYOP>1111111</DYOP>")}</SCHS>`, "DYOP"],
    [`<SCHS>${FLTR("<DYOP>10305</DYOP>")}</SCHS>`, "DYOP"],
    [`<SCHS>${FLTR("<SCHT>2400</SCHT>")}</SCHS>`, "SCHT"],
    [`<SCHS>${FLTR("<SCHT>05MAR260800</SCHT>")}</SCHS>`, "SCHT"],
    [`<SCHS>${FLTR("<MVIN>X</MVIN>")}</SCHS>`, "MVIN"],
    [`<SCHS>${FLTR("<STDT>31FEB26</STDT>")}</SCHS>`, "STDT"],
    [`<SCHS>${FLTR('<ROUT RTNO="1"><SCAT>05MAR261110</SCAT></ROUT>')}</SCHS>`, "ROUT[1] SCAT"],
    [`<SCHS>${FLTR('<ERUT RTNO="1"><SADC>tomorrow</SADC></ERUT>')}</SCHS>`, "SADC"],
    [`<SCHS>${FLTR("<ERUT><APCD>PEK</APCD></ERUT>")}</SCHS>`, "without its key attribute RTNO"],
    [`<SCHS>${FLTR('<ROUT RTNO="1"/><ROUT RTNO="1"/>')}</SCHS>`, "duplicate ROUT key"],
    [`<SCHS>${FLTR('<ROUT/><ROUT RTNO="1"/>')}</SCHS>`, "mixed"],
  ])("%s → PROTOCOL (%s)", (body, reason) => {
    const r = decodeMessage(msg("SCHS", "DNLD", body), PROCESS);
    expect(r).toMatchObject({ ok: false, errorClass: "PROTOCOL", meta: { type: "SCHS" } });
    expect(!r.ok && r.reason).toContain(reason);
  });
});
