import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { arbFlightRecord, arbMeta, arbXmlStyle, flightRecordToXml, messageXml, schdXml } from "../../src/testing/sis-xml.arbitraries.js";

describe("generated SIS XML decodes to exactly the generated model", () => {
  fcTest.prop(
    [fc.constantFrom("ESTT", "GTDT", "CNCL", "FDIV", "ZZZZ"), arbMeta(), fc.array(arbFlightRecord(), { minLength: 1, maxLength: 3 }), arbXmlStyle()],
    { numRuns: 300 },
  )("FLOP blocks (absent vs null preserved)", (styp, base, blocks, style) => {
    const meta = { ...base, type: "FLOP", styp };
    const raw = messageXml(meta, blocks.map((b) => flightRecordToXml(b, "FLOP", style)).join(""));
    // ZZZZ is outside the update matrix: unsupported by default, decoded when the policy processes it.
    expect(decodeMessage(raw, { typePolicy: { "FLOP/ZZZZ": "process" } })).toStrictEqual({ ok: true, message: { meta, body: { kind: "flop", styp, blocks } } });
  });

  fcTest.prop(
    [fc.constantFrom("DNLD" as const, "RESP" as const), arbMeta(), fc.array(arbFlightRecord({ schd: true }), { maxLength: 4 }), arbXmlStyle()],
    { numRuns: 200 },
  )("SCHD snapshots", (styp, base, flights, style) => {
    const meta = { ...base, type: "SCHD", styp };
    const raw = messageXml(meta, schdXml(flights, flights.length, style));
    expect(decodeMessage(raw)).toStrictEqual({
      ok: true,
      message: { meta, body: { kind: "snapshot", styp, body: { recs: flights.length, flights } } },
    });
  });

  fcTest.prop([arbMeta({ type: "SCHD", styp: "ADFT" }), fc.array(arbFlightRecord({ schd: true }), { minLength: 1, maxLength: 3 })], { numRuns: 100 })(
    "SCHD/ADFT",
    (meta, flights) => {
      const r = decodeMessage(messageXml(meta, schdXml(flights)));
      expect(r).toStrictEqual({ ok: true, message: { meta, body: { kind: "adft", styp: "ADFT", body: { recs: flights.length, flights } } } });
    },
  );

  fcTest.prop([arbFlightRecord({ schd: true })], { numRuns: 100 })("a SCHD record always carries the required fields", (record) => {
    for (const name of ["ALCD", "FLNO", "MVIN", "SODT", "FLTY", "FLIN"] as const) expect(typeof record.scalars[name]).toBe("string");
  });
});
