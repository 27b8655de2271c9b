import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { DecodeResult } from "../../src/codec/decode-result.js";
import { decodeMessage, decodeMessageInSlices } from "../../src/codec/xml-codec.js";
import { DEFAULT_PARSE_SLICE } from "../../src/codec/xml-tree.js";
import { arbFlightRecord, arbMeta, arbXmlStyle, flightRecordToXml, messageXml } from "../../src/testing/sis-xml.arbitraries.js";
import { fixture, msg, SHARED_FIXTURES } from "./sis-fixtures.js";

/**
 * What slicing must keep: the whole result of a decode that succeeds; the class and META of a
 * refusal (its wording may depend on where the slices fall: saxes can see a fault one character
 * earlier in a short slice).
 */
const kept = (r: DecodeResult): unknown => (r.ok ? r : { ok: false, errorClass: r.errorClass, meta: r.meta });

/** Decodes in slices, counting the pauses. */
async function sliced(raw: string, slice?: number): Promise<{ result: DecodeResult; pauses: number }> {
  let pauses = 0;
  const result = await decodeMessageInSlices(raw, {}, async () => void (pauses += 1), slice);
  return { result, pauses };
}

/** The records of a fixture's SCHD or reference body (FLTR or ARPT elements). */
const records = (raw: string): number => (raw.match(/<FLTR[\s>]/g) ?? []).length + (raw.match(/<ARPT[\s>]/g) ?? []).length;

const FIXTURES = [...SHARED_FIXTURES, "07-flop-estt-two-blocks.xml", "08-flop-clears.xml", "09-arpt-resp-reference.xml"] as const;
const SPICY = ["<", ">", "&", "\r\n", "\r", "\uD800", "\uDC00", "航", "\uD83D\uDE00", "<!DOCTYPE MSG>", "]]>", "\u0000"];

describe("decodeMessageInSlices gives what decodeMessage gives, whatever the slice", () => {
  fcTest.prop([fc.constantFrom(...FIXTURES), fc.integer({ min: 1, max: 80 })], { numRuns: 300 })("the fixtures", async (name, slice) => {
    const raw = fixture(name);
    const { result, pauses } = await sliced(raw, slice);
    expect(result).toStrictEqual(decodeMessage(raw));
    // A document read to the end pauses once between every two slices, and once between every
    // `slice / 128` records of a SCHD or reference body (every record at these sizes).
    expect(pauses).toBe(Math.ceil(raw.length / slice) - 1 + Math.max(0, records(raw) - 1));
  });

  fcTest.prop(
    [fc.constantFrom(...FIXTURES), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...SPICY)), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 40 })],
    { numRuns: 500 },
  )("fixtures with hostile characters and markup inserted (CR, surrogates and pairs fall on slice edges)", async (name, inserts, slice) => {
    const raw = inserts.reduce((text, [at, s]) => text.slice(0, at % (text.length + 1)) + s + text.slice(at % (text.length + 1)), fixture(name));
    const { result, pauses } = await sliced(raw, slice);
    expect(kept(result)).toStrictEqual(kept(decodeMessage(raw)));
    expect(pauses).toBeLessThanOrEqual(Math.max(0, Math.ceil(raw.length / slice) - 1) + records(raw));
  });

  fcTest.prop([arbMeta({ type: "FLOP", styp: "ESTT" }), fc.array(arbFlightRecord(), { minLength: 1, maxLength: 3 }), arbXmlStyle(), fc.integer({ min: 1, max: 64 })], {
    numRuns: 200,
  })("generated FLOP messages", async (meta, blocks, style, slice) => {
    const raw = messageXml(meta, blocks.map((b) => flightRecordToXml(b, "FLOP", style)).join(""));
    const { result } = await sliced(raw, slice);
    expect(result).toStrictEqual({ ok: true, message: { meta, body: { kind: "flop", styp: "ESTT", blocks } } });
  });

  it("keeps a CRLF and a surrogate pair whole at every cut", async () => {
    const raw = msg("FLOP", "DELY", '<FLOP><FLID>1</FLID><DELY CODE="81" STRT="05MAR260800" DURA="0015">航\r\n😀 flow</DELY></FLOP>');
    const whole = decodeMessage(raw);
    expect(whole.ok).toBe(true);
    for (let slice = 1; slice <= raw.length; slice++) expect((await sliced(raw, slice)).result, `slice ${slice}`).toStrictEqual(whole);
  });
});

describe("decodeMessageInSlices lets other work run", () => {
  it("never pauses for a document of one slice or less", async () => {
    const raw = fixture("01-schd-dnld-3-flights.xml");
    expect(raw.length).toBeLessThanOrEqual(DEFAULT_PARSE_SLICE);
    expect((await sliced(raw)).pauses).toBe(0);
  });

  it("pauses between every two slices of a document of megabytes, and stops at its first fault", async () => {
    const text = msg("FLOP", "ESTT", `<FLOP><FLID>1</FLID><ESTT>${"x".repeat(4 * 1024 * 1024 - 400)}`);
    const { result, pauses } = await sliced(text);
    expect(result).toStrictEqual(decodeMessage(text));
    expect(result).toMatchObject({ ok: false, errorClass: "MALFORMED", reason: expect.stringMatching(/^not well-formed/) });
    expect(pauses).toBe(Math.ceil(text.length / DEFAULT_PARSE_SLICE) - 1);
    expect(pauses).toBeGreaterThanOrEqual(63);

    // A fault early in a large document ends the parse there: no pause after it.
    const early = msg("FLOP", "ESTT", `<FLOP><FLID>1</FLID><ESTT>&bad;${"x".repeat(2 * 1024 * 1024)}</ESTT></FLOP>`);
    expect(await sliced(early)).toStrictEqual({ result: decodeMessage(early), pauses: 0 });
  });

  it("pauses between every 512 records of a large snapshot's body too", async () => {
    const dnld = fixture("01-schd-dnld-3-flights.xml");
    const fltr = dnld.match(/<FLTR[\s>][\s\S]*?<\/FLTR>/)![0];
    const raw = dnld.replace(/<FLTR[\s>][\s\S]*<\/FLTR>/, fltr.repeat(2_000)).replace(/<RECS>\d+<\/RECS>/, "<RECS>2000</RECS>");
    const { result, pauses } = await sliced(raw);
    expect(result).toStrictEqual(decodeMessage(raw));
    expect(result).toMatchObject({ ok: true, message: { body: { kind: "snapshot", body: { recs: 2_000 } } } });
    expect(pauses).toBe(Math.ceil(raw.length / DEFAULT_PARSE_SLICE) - 1 + Math.floor((2_000 - 1) / 512));
  });

  it("refuses a slice that is not a positive integer", async () => {
    for (const slice of [0, -1, 1.5, Number.NaN]) {
      await expect(decodeMessageInSlices("<MSG/>", {}, async () => undefined, slice)).rejects.toThrow(RangeError);
    }
  });
});
