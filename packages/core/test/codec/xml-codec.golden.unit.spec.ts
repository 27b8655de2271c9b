import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { fixture } from "./sis-fixtures.js";

const meta = (seqn: number, dttm: string, type: string, styp: string) => ({ sndr: "AODB", seqn, dttm, type, styp });

describe("decodeMessage over the shared fixtures (golden)", () => {
  it("01: a DNLD snapshot of three flights, with collections keyed and times normalized", () => {
    expect(decodeMessage(fixture("01-schd-dnld-3-flights.xml"))).toStrictEqual({
      ok: true,
      message: {
        meta: meta(480211, "20260305020000", "SCHD", "DNLD"),
        body: {
          kind: "snapshot",
          styp: "DNLD",
          body: {
            recs: 3,
            flights: [
              {
                flid: "900101",
                scalars: { ALCD: "CZ", FLNO: "CZ3101", MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D", ACFT: "333", RENO: "B5948", TRML: "T2", STND: "A112" },
                collections: {
                  ROUT: [{ key: "1", values: { APCD: "PEK", SCAT: "2026-03-05T11:10" } }],
                  PSDT: [{ key: "1", values: { PSST: "A112", STST: "2026-03-05T06:20", STET: "2026-03-05T08:15" } }],
                  GTDT: [{ key: "1", values: { GATE: "A22", PGOT: "2026-03-05T07:10", PGCT: "2026-03-05T07:45", GTYP: "D" } }],
                  CKDT: [
                    { key: "1", values: { CHKC: "C01", CCLS: "F", PCOT: "2026-03-05T06:00", PCCT: "2026-03-05T07:20", CTYP: "D" } },
                    { key: "2", values: { CHKC: "C02", CCLS: "Y", PCOT: "2026-03-05T06:00", PCCT: "2026-03-05T07:20", CTYP: "D" } },
                  ],
                  CHDT: [{ key: "1", values: { CHUT: "M07", PCBT: "2026-03-05T06:00", PCET: "2026-03-05T07:40", CTYP: "D" } }],
                  ERUT: [
                    { key: "1", values: { APCD: "CAN", SCDT: "2026-03-05T08:00" } },
                    { key: "2", values: { APCD: "PEK", SCAT: "2026-03-05T11:10" } },
                  ],
                },
              },
              {
                flid: "900102",
                scalars: { ALCD: "MF", FLNO: "MF1571", MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D", ACFT: "333", CSOP: "CZ", CSFT: "CZ3101", MAID: "900101" },
                collections: {},
              },
              {
                flid: "900103",
                scalars: {
                  ALCD: "CZ", FLNO: "CZ3540", MVIN: "A", SODT: "2026-03-05T14:15", FLTY: "W", FLIN: "D", ACFT: "321", RENO: "B6631",
                  TAOP: "CZ", TAFL: "CZ3541", TAID: "900104", ESTT: "2026-03-05T14:40", FTSS: "DELAY",
                },
                collections: {
                  ROUT: [{ key: "1", values: { APCD: "SHA", SCDT: "2026-03-05T12:05" } }],
                  DELY: [{ key: "81", values: { "@CODE": "81", "@STRT": "2026-03-05T12:05", "@DURA": "00:25", "#text": "ATC flow" } }],
                  CLDT: [{ key: "1", values: { BELT: "B05", PCOT: "2026-03-05T14:40", PCCT: "2026-03-05T15:30", BTYP: "D" } }],
                },
              },
            ],
          },
        },
      },
    });
  });

  it("01: absent elements are absent, not null (no FFID, no CNCL, no GTDT on the codeshare)", () => {
    const r = decodeMessage(fixture("01-schd-dnld-3-flights.xml"));
    if (!r.ok || r.message.body.kind !== "snapshot") throw new Error("expected a snapshot");
    const codeshare = r.message.body.body.flights[1];
    expect(codeshare).not.toHaveProperty("ffid");
    expect(codeshare?.scalars).not.toHaveProperty("CNCL");
    expect(codeshare?.collections).not.toHaveProperty("GTDT");
  });

  it("02: a RESP snapshot of one flight", () => {
    expect(decodeMessage(fixture("02-schd-resp.xml"))).toStrictEqual({
      ok: true,
      message: {
        meta: meta(480377, "20260305091620", "SCHD", "RESP"),
        body: {
          kind: "snapshot",
          styp: "RESP",
          body: {
            recs: 1,
            flights: [
              {
                flid: "900201",
                scalars: { ALCD: "CZ", FLNO: "CZ3102", MVIN: "A", SODT: "2026-03-06T09:30", FLTY: "W", FLIN: "D", ACFT: "333" },
                collections: {},
              },
            ],
          },
        },
      },
    });
  });

  it("03: a FLOP/GTDT gate change carries the whole gate list", () => {
    expect(decodeMessage(fixture("03-flop-gtdt-gate-change.xml"))).toStrictEqual({
      ok: true,
      message: {
        meta: meta(480512, "20260305064210", "FLOP", "GTDT"),
        body: {
          kind: "flop",
          styp: "GTDT",
          blocks: [
            {
              flid: "900101",
              ffid: "CZ-CZ3101-D-05MAR260800-D",
              scalars: {},
              collections: { GTDT: [{ key: "1", values: { GATE: "A25", PGOT: "2026-03-05T07:10", PGCT: "2026-03-05T07:45", GTYP: "D" } }] },
            },
          ],
        },
      },
    });
  });

  it("04: a FLOP/ESTT update", () => {
    expect(decodeMessage(fixture("04-flop-estt.xml"))).toStrictEqual({
      ok: true,
      message: {
        meta: meta(480590, "20260305131002", "FLOP", "ESTT"),
        body: {
          kind: "flop",
          styp: "ESTT",
          blocks: [{ flid: "900103", ffid: "CZ-CZ3540-A-05MAR261415-D", scalars: { ESTT: "2026-03-05T14:52" }, collections: {} }],
        },
      },
    });
  });

  it("05: a FLOP/FDEL deletes one flight", () => {
    expect(decodeMessage(fixture("05-flop-fdel.xml"))).toStrictEqual({
      ok: true,
      message: { meta: meta(480611, "20260305071500", "FLOP", "FDEL"), body: { kind: "fdel", flid: "900102", ffid: "MF-MF1571-D-05MAR260800-D" } },
    });
  });

  it("06: an LDM is ignorable and its body is not read", () => {
    expect(decodeMessage(fixture("06-ldm-ignored.xml"))).toStrictEqual({
      ok: true,
      message: { meta: meta(480733, "20260305102205", "LDM", "NONE"), body: { kind: "ignorable", type: "LDM" } },
    });
  });
});
