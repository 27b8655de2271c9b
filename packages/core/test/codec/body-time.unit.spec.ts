import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { formatBodyTime, operationDayOf, parseBodyDate, parseBodyTime, parseDuration } from "../../src/codec/body-time.js";
import { arbBodyTime, arbIsoLocalTime, encodeBodyTime } from "../../src/testing/sis-xml.arbitraries.js";

describe("parseBodyTime", () => {
  it.each([
    ["15DEC031530", "2003-12-15T15:30"],
    ["05MAR260800", "2026-03-05T08:00"],
    ["05mar260800", "2026-03-05T08:00"],
    ["05Mar260800", "2026-03-05T08:00"],
    ["29FEB240000", "2024-02-29T00:00"],
    ["31DEC992359", "2099-12-31T23:59"],
    [" 01JAN000000\n", "2000-01-01T00:00"],
  ])("%j → %s", (text, iso) => expect(parseBodyTime(text)).toBe(iso));

  it.each(["", "5MAR260800", "05MRZ260800", "32JAN260800", "31APR260800", "29FEB250800", "00MAR260800", "05MAR262400", "05MAR260860", "05MAR26080", "05MAR2608000", "05MAR26 0800", "202603050800"])(
    "%j is not a body time",
    (text) => expect(parseBodyTime(text)).toBeNull(),
  );

  it("accepts 12/14-digit numeric times only with the tolerance, seconds dropped", () => {
    expect(parseBodyTime("202603050800")).toBeNull();
    expect(parseBodyTime("202603050800", true)).toBe("2026-03-05T08:00");
    expect(parseBodyTime("20260305080059", true)).toBe("2026-03-05T08:00");
    expect(parseBodyTime("20260305080060", true)).toBeNull();
    expect(parseBodyTime("20260230080000", true)).toBeNull();
    expect(parseBodyTime("2026030508000", true)).toBeNull();
    expect(parseBodyTime("05MAR260800", true)).toBe("2026-03-05T08:00");
  });

  fcTest.prop([arbBodyTime()])("decodes every generated body time to its ISO local time", ({ wire, iso }) => {
    expect(parseBodyTime(wire)).toBe(iso);
  });

  fcTest.prop([arbIsoLocalTime()])("formatBodyTime is the inverse of parseBodyTime", (iso) => {
    expect(parseBodyTime(formatBodyTime(iso))).toBe(iso);
    expect(encodeBodyTime(iso)).toBe(formatBodyTime(iso));
  });

  fcTest.prop([fc.string({ maxLength: 20 }), fc.boolean()])("never throws", (text, tolerance) => {
    const r = parseBodyTime(text, tolerance);
    expect(r === null || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(r)).toBe(true);
  });
});

describe("formatBodyTime", () => {
  it("formats with an upper-case month and refuses what it cannot write", () => {
    expect(formatBodyTime("2003-12-15T15:30")).toBe("15DEC031530");
    expect(() => formatBodyTime("1999-12-31T23:59")).toThrow(RangeError);
    expect(() => formatBodyTime("2026-02-30T10:00")).toThrow(RangeError);
    expect(() => formatBodyTime("05MAR260800")).toThrow(RangeError);
  });
});

describe("parseBodyDate and parseDuration", () => {
  it("parses ddMMMyy dates", () => {
    expect(parseBodyDate("06MAR26")).toBe("2026-03-06");
    expect(parseBodyDate("29feb24")).toBe("2024-02-29");
    expect(parseBodyDate("29FEB25")).toBeNull();
    expect(parseBodyDate("06MAR2608")).toBeNull();
  });

  it("parses HHMM durations", () => {
    expect(parseDuration("0025")).toBe("00:25");
    expect(parseDuration("9959")).toBe("99:59");
    expect(parseDuration("0060")).toBeNull();
    expect(parseDuration("025")).toBeNull();
    expect(parseDuration("00:25")).toBeNull();
  });
});

describe("operationDayOf", () => {
  it("is the local date without an offset", () => {
    expect(operationDayOf("2026-03-05T00:00")).toBe("20260305");
    expect(operationDayOf("2026-03-05T23:59")).toBe("20260305");
  });

  it("shifts back by the day-start offset", () => {
    expect(operationDayOf("2026-03-05T03:59", 240)).toBe("20260304");
    expect(operationDayOf("2026-03-05T04:00", 240)).toBe("20260305");
    expect(operationDayOf("2026-01-01T00:30", 60)).toBe("20251231");
    expect(operationDayOf("2024-03-01T01:00", 120)).toBe("20240229");
  });

  it("refuses what is not an ISO local time", () => {
    expect(() => operationDayOf("05MAR260800")).toThrow(RangeError);
    expect(() => operationDayOf("2026-02-30T10:00")).toThrow(RangeError);
  });

  fcTest.prop([arbIsoLocalTime()])("with no offset is the date part", (iso) => {
    expect(operationDayOf(iso)).toBe(iso.slice(0, 10).replace(/-/g, ""));
  });
});
