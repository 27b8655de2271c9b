import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { CodecLimits, DecodeResult } from "../../src/codec/decode-result.js";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { fixture, msg, SHARED_FIXTURES } from "./sis-fixtures.js";

const VALID = msg("FLOP", "ESTT", "<FLOP><FLID>1</FLID><ESTT>05MAR261200</ESTT></FLOP>");

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE MSG [
 <!ENTITY lol "lol">
 ${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i ? i : ""};`.repeat(10)}">`).join("\n ")}
]>
<MSG><META><SNDR>&lol9;</SNDR></META></MSG>`;

const nested = (depth: number): string => `<MSG>${"<A>".repeat(depth)}${"</A>".repeat(depth)}</MSG>`;
const attributes = (n: number): string => `<MSG ${Array.from({ length: n }, (_, i) => `a${i}="1"`).join(" ")}/>`;

/** Every case must be refused as MALFORMED, with a reason that says what was refused. */
const HOSTILE: readonly (readonly [string, () => string, RegExp])[] = [
  ["billion laughs (nested entity definitions)", () => BILLION_LAUGHS, /DOCTYPE/],
  ["external entity", () => `<!DOCTYPE MSG [<!ENTITY x SYSTEM "file:///etc/passwd">]><MSG>&x;</MSG>`, /DOCTYPE/],
  ["parameter entity", () => `<!DOCTYPE MSG [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]>${VALID}`, /DOCTYPE/],
  ["a bare DOCTYPE before a valid message", () => `<!DOCTYPE MSG>${VALID}`, /DOCTYPE/],
  ["a DOCTYPE after the root", () => `${VALID}<!DOCTYPE MSG>`, /not well-formed|DOCTYPE/],
  ["100k nesting depth", () => nested(100_000), /maxDepth/],
  ["an element with 50k attributes", () => attributes(50_000), /maxAttributes/],
  ["a duplicate attribute", () => `<MSG a="1" a="2"/>`, /duplicate attribute/],
  ["250k elements", () => `<MSG>${"<A/>".repeat(250_000)}</MSG>`, /maxElements/],
  ["a 20 MB text node", () => `<MSG><META>${"x".repeat(20 * 1024 * 1024)}</META></MSG>`, /maxBytes/],
  ["a truncated document", () => fixture("01-schd-dnld-3-flights.xml").slice(0, 700), /not well-formed/],
  ["a document cut inside a tag", () => VALID.slice(0, VALID.length - 3), /not well-formed/],
  ["two roots", () => `${VALID}${VALID}`, /second root|only one root/],
  ["text after the root", () => `${VALID}trailing`, /outside/],
  // WIRE.md "Upstream client defects not to copy": the upstream's client applies such a message.
  ["a duplicated closing root tag", () => VALID.replace("</MSG>", "</MSG></MSG>"), /not well-formed: .*unmatched closing tag/],
  ["text before the root", () => `leading${VALID}`, /not well-formed|outside/],
  ["the empty string", () => "", /empty input/],
  ["whitespace only", () => " \n\t ", /empty input/],
  ["non-XML text", () => "hello, world", /not well-formed/],
  ["JSON", () => `{"MSG":{"META":{}}}`, /not well-formed/],
  ["a wrong root", () => VALID.replace(/MSG>/g, "MESSAGE>"), /root element is MESSAGE/],
  ["an undefined entity", () => VALID.replace("<FLID>1", "<FLID>&foo;1"), /undefined entity/],
  ["an invalid character", () => VALID.replace("<FLID>1", "<FLID>\u0001"), /disallowed character/],
  ["a NUL character reference", () => VALID.replace("<FLID>1", "<FLID>&#0;1"), /malformed character entity/],
  ["a lone high surrogate", () => VALID.replace("<FLID>1", "<FLID>\uD8001"), /surrogate/],
  ["a lone low surrogate", () => VALID.replace("<FLID>1", "<FLID>1\uDC00"), /surrogate/],
  ["a non-character", () => VALID.replace("<FLID>1", "<FLID>\uFFFE1"), /disallowed character/],
  ["mismatched tags", () => VALID.replace("</FLOP>", "</FLIP>"), /not well-formed/],
  ["']]>' in text", () => VALID.replace("<FLID>1", "<FLID>]]>1"), /not well-formed/],
  ["an unquoted attribute", () => VALID.replace("<FLOP>", "<FLOP a=1>"), /not well-formed/],
  ["a valid META before a broken body", () => VALID.replace("<FLID>1</FLID>", "<FLID>1</FLI>"), /not well-formed/],
];

describe("hostile input → MALFORMED, nothing expanded, nothing kept", () => {
  it.each(HOSTILE)("%s", (_, make, reason) => {
    const r = decodeMessage(make());
    expect(r).toMatchObject({ ok: false, errorClass: "MALFORMED", meta: null });
    expect(!r.ok && r.reason).toMatch(reason);
    expect(!r.ok && r.reason.length).toBeLessThan(200);
    expect(!r.ok && r.reason).not.toContain("lollol");
  }, 10_000);

  it("refuses a raw text that is not a string", () => {
    expect(decodeMessage(null as unknown as string)).toMatchObject({ errorClass: "MALFORMED", reason: "raw text missing" });
    expect(decodeMessage(undefined as unknown as string)).toMatchObject({ errorClass: "MALFORMED" });
  });

  it("counts bytes in UTF-8, not characters", () => {
    const raw = msg("FLOP", "REMC", `<FLOP><FLID>1</FLID><REMC>${"中".repeat(80)}</REMC></FLOP>`);
    const limits = { maxBytes: raw.length + 100, maxDepth: 32, maxAttributes: 32, maxElements: 100 };
    expect(decodeMessage(raw, { limits })).toMatchObject({ errorClass: "MALFORMED", reason: expect.stringMatching(/maxBytes/) });
    expect(decodeMessage(raw, { limits: { ...limits, maxBytes: raw.length + 200 } }).ok).toBe(true);
  });

  it("applies caps given in part over the defaults, each cap inclusive", () => {
    const caps = (limits: Partial<CodecLimits>) => ({ limits: limits as CodecLimits });
    const flat = (n: number) => msg("LDM", "NONE", `<LDM>${"<A/>".repeat(n)}</LDM>`);
    const inEnvelope = 8; // MSG, META and its five fields, LDM
    expect(decodeMessage(flat(100 - inEnvelope), caps({ maxElements: 100 })).ok).toBe(true);
    expect(decodeMessage(flat(101 - inEnvelope), caps({ maxElements: 100 }))).toMatchObject({ reason: expect.stringMatching(/maxElements/) });

    const deep = (depth: number) => msg("LDM", "NONE", `<LDM>${"<A>".repeat(depth - 2)}${"</A>".repeat(depth - 2)}</LDM>`);
    expect(decodeMessage(deep(32)).ok).toBe(true);
    expect(decodeMessage(deep(33))).toMatchObject({ reason: expect.stringMatching(/maxDepth/) });

    const attributed = (n: number) => msg("LDM", "NONE", `<LDM${Array.from({ length: n }, (_, i) => ` a${i}="1"`).join("")}/>`);
    expect(decodeMessage(attributed(32)).ok).toBe(true);
    expect(decodeMessage(attributed(33))).toMatchObject({ reason: expect.stringMatching(/maxAttributes/) });
    expect(decodeMessage(attributed(4), caps({ maxAttributes: 3 }))).toMatchObject({ errorClass: "MALFORMED" });
  });

  it("ignores comments, processing instructions and an XML declaration", () => {
    const r = decodeMessage(`\uFEFF<?xml version="1.0" encoding="UTF-8"?><?pi data?><!-- c -->${VALID}<!-- end --><?pi?>\n`);
    expect(r.ok).toBe(true);
  });
});

/** What every decode must be: a classified result, never a throw and never a decoder bug. */
function expectClassified(r: DecodeResult): void {
  expect(typeof r.ok).toBe("boolean");
  if (r.ok) {
    expect(typeof r.message.body.kind).toBe("string");
    return;
  }
  expect(["MALFORMED", "PROTOCOL", "CODEC_ERROR"]).toContain(r.errorClass);
  expect(r.reason).not.toMatch(/^(decoder|parser) failure/);
  expect(r.meta === null).toBe(r.errorClass === "MALFORMED");
}

type Mutation =
  | { readonly op: "truncate"; readonly at: number }
  | { readonly op: "insert"; readonly at: number; readonly text: string }
  | { readonly op: "swap"; readonly at: number; readonly with: number }
  | { readonly op: "delete"; readonly at: number; readonly length: number };

const SPICY = [..."<>&;/\"'=![]?-# \n", "<!DOCTYPE MSG>", "&lt;", "&#0;", "\u0000", "\uD800", "中", "<A>", "</A>", "<X/>", "]]>"];
const arbMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...SPICY), fc.string({ maxLength: 4 })) }),
  fc.record({ op: fc.constant("swap" as const), at: fc.nat(), with: fc.nat() }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
);

function mutate(text: string, m: Mutation): string {
  const at = text.length === 0 ? 0 : m.at % (text.length + 1);
  switch (m.op) {
    case "truncate":
      return text.slice(0, at);
    case "insert":
      return text.slice(0, at) + m.text + text.slice(at);
    case "delete":
      return text.slice(0, at) + text.slice(at + m.length);
    case "swap": {
      // Code units, not characters: splitting a surrogate pair is part of the test.
      if (text.length < 2) return text;
      const [lo, hi] = [m.at % text.length, m.with % text.length].sort((a, b) => a - b) as [number, number];
      if (lo === hi) return text;
      return text.slice(0, lo) + text.charAt(hi) + text.slice(lo + 1, hi) + text.charAt(lo) + text.slice(hi + 1);
    }
  }
}

describe("random mutations of valid messages", () => {
  fcTest.prop([fc.constantFrom(...SHARED_FIXTURES, "07-flop-estt-two-blocks.xml", "08-flop-clears.xml", "09-arpt-resp-reference.xml"), fc.array(arbMutation, { minLength: 1, maxLength: 6 })], {
    numRuns: 600,
  })("never throw and always give a classified DecodeResult", (name, mutations) => {
    const raw = mutations.reduce(mutate, fixture(name));
    expectClassified(decodeMessage(raw));
  });
});
