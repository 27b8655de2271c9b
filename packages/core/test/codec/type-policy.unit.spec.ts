import { describe, expect, it } from "vitest";
import { knownTypes, KINDS, typePolicyProblems, typeRule } from "../../src/codec/type-policy.js";
import { DEFAULT_CODEC_OPTIONS } from "../../src/codec/decode-result.js";
import { FLOP_MATRIX } from "../../src/model/flop-matrix.js";
import { defaultProcessors } from "../../src/flight/default-processors.js";
import type { Processor, ProcessorTable } from "../../src/processing/processor.js";

const REFS = DEFAULT_CODEC_OPTIONS.referenceTypes;
const rule = (type: string, styp = "DNLD", policy = {}) => typeRule(type, styp, policy, REFS).disposition;
const stub = { flightsOf: () => [], apply: () => ({ type: "skipped", reason: "stub" }) } as unknown as Processor;
/** A processor for every kind the table names, but `seasonal` (there is none yet). */
const ALL = Object.fromEntries(KINDS.flatMap((r) => r.kinds).filter((k) => k !== "seasonal").map((k) => [k, stub])) as ProcessorTable;

describe("type policy defaults (WIRE.md \"Unknown and unwanted types\")", () => {
  it("processes SCHD, the FLOP matrix subtypes with FDEL, and every reference type", () => {
    expect(rule("SCHD")).toBe("process");
    for (const styp of [...Object.keys(FLOP_MATRIX), "FDEL"]) expect(rule("FLOP", styp), styp).toBe("process");
    expect(REFS.length).toBeGreaterThan(0);
    for (const type of REFS) expect(rule(type, "DNLD"), type).toBe("process");
  });

  it("ignores SCHS, LDM, RSTA and EROR, whatever the subtype", () => {
    for (const type of ["SCHS", "LDM", "RSTA", "EROR"]) {
      expect(rule(type, "DNLD"), type).toBe("ignore");
      expect(rule(type, "NONE"), type).toBe("ignore");
    }
  });

  it("calls anything else unsupported: unknown TYPEs, FLOP subtypes outside the matrix, case variants", () => {
    expect(rule("ZZZZ", "NONE")).toBe("unsupported");
    expect(rule("FLOP", "ZZZZ")).toBe("unsupported");
    expect(rule("schd")).toBe("unsupported");
    expect(rule("RQFD", "NONE")).toBe("unsupported");
  });

  it("is one table: every default row names its kinds, and only processed rows have a decoder", () => {
    expect(KINDS.map((r) => [r.type, r.disposition])).toEqual([
      ["SCHD", "process"],
      ["FLOP", "process"],
      ["<reference type>", "process"],
      ["SCHS", "ignore"],
      ["LDM", "ignore"],
      ["RSTA", "ignore"],
      ["EROR", "ignore"],
    ]);
    expect(KINDS.find((r) => r.type === "SCHS")).toMatchObject({ format: "schs", kinds: ["seasonal"] });
  });
});

describe("operator settings", () => {
  it("override a TYPE; a FLOP/<STYP> setting wins over a FLOP setting; keys name the reason", () => {
    expect(typeRule("SCHS", "DNLD", { SCHS: "process" }, REFS)).toMatchObject({ disposition: "process", key: "SCHS" });
    expect(typeRule("ZZZZ", "NONE", { ZZZZ: "ignore" }, REFS)).toMatchObject({ disposition: "ignore", key: "ZZZZ" });
    expect(typeRule("SCHD", "DNLD", { SCHD: "unsupported" }, REFS)).toMatchObject({ disposition: "unsupported" });
    expect(typeRule("FLOP", "ESTT", { "FLOP/ESTT": "ignore" }, REFS)).toMatchObject({ disposition: "ignore", key: "FLOP/ESTT" });
    expect(typeRule("FLOP", "ESTT", { FLOP: "ignore" }, REFS)).toMatchObject({ disposition: "ignore", key: "FLOP" });
    expect(typeRule("FLOP", "ESTT", { FLOP: "ignore", "FLOP/ESTT": "process" }, REFS)).toMatchObject({ disposition: "process" });
    // FLOP=process keeps each subtype's default: outside the matrix stays unsupported.
    expect(typeRule("FLOP", "ZZZZ", { FLOP: "process" }, REFS)).toMatchObject({ disposition: "unsupported", key: "FLOP/ZZZZ" });
  });

  it("a policy key that looks like a prototype member is just an unknown TYPE", () => {
    expect(rule("toString", "NONE")).toBe("unsupported");
  });
});

describe("typePolicyProblems: process needs a decoder and a processor (checked at start)", () => {
  it("accepts the defaults with every default processor", () => {
    expect(typePolicyProblems({}, REFS, ALL)).toEqual([]);
  });

  it("defaultProcessors() alone serves every kind the kinds table processes by default (reference replies included)", () => {
    expect(typePolicyProblems({}, REFS, defaultProcessors())).toEqual([]);
    expect(Object.keys(defaultProcessors()).sort()).toEqual(Object.keys(ALL).sort());
  });

  it("refuses SCHS=process (no seasonal processor), LDM=process and an unknown TYPE=process", () => {
    expect(typePolicyProblems({ SCHS: "process" }, REFS, ALL)).toEqual(["SCHS=process: no processor is registered for kind seasonal"]);
    expect(typePolicyProblems({ LDM: "process", XYZ: "process" }, REFS, ALL)).toEqual([
      "LDM=process: msgx has no decoder or processor for this type",
      "XYZ=process: msgx has no decoder or processor for this type",
    ]);
  });

  it("refuses a FLOP subtype outside the matrix set to process", () => {
    expect(typePolicyProblems({ "FLOP/ZZZZ": "process" }, REFS, ALL)).toEqual(["FLOP/ZZZZ=process: ZZZZ is not FDEL or a subtype of the FLOP update matrix"]);
  });

  it("refuses a default-processed TYPE whose processor is missing, unless it is switched off", () => {
    const { reference: _, ...noReference } = ALL;
    expect(typePolicyProblems({}, ["ARPT"], noReference)).toEqual(["ARPT=process: no processor is registered for kind reference"]);
    expect(typePolicyProblems({ ARPT: "ignore" }, ["ARPT"], noReference)).toEqual([]);
    const { flop: __, ...noFlop } = ALL;
    expect(typePolicyProblems({}, REFS, noFlop)).toEqual(["FLOP=process: no processor is registered for kind flop"]);
    expect(typePolicyProblems({ FLOP: "unsupported" }, REFS, noFlop)).toEqual([]);
    expect(typePolicyProblems({ FLOP: "unsupported", "FLOP/ESTT": "process" }, REFS, noFlop)).toEqual(["FLOP=process: no processor is registered for kind flop"]);
  });

  it("refuses malformed keys and values", () => {
    expect(typePolicyProblems({ "SCHD/DNLD": "ignore", AB: "ignore", LDM: "skip" as never }, REFS, ALL)).toEqual([
      "SCHD/DNLD: not a TYPE (3–4 letters) or FLOP/<STYP>",
      "AB: not a TYPE (3–4 letters) or FLOP/<STYP>",
      "LDM=skip: not one of process, ignore, unsupported",
    ]);
  });
});

describe("knownTypes bounds metric labels", () => {
  it("holds the table's types, the reference types and the configured ones, nothing else", () => {
    const known = knownTypes({ XYZ: "ignore", "FLOP/ABCD": "ignore" }, ["ARPT"]);
    expect([...known].sort()).toEqual(["ARPT", "EROR", "FLOP", "LDM", "RSTA", "SCHD", "SCHS", "XYZ"]);
  });
});
