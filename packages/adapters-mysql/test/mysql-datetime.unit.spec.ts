import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { dttmToDatetime } from "@msgx/core";
import { datetimeToInstant, instantToDatetime, zoneOffsetMinutes } from "@msgx/adapters-mysql";

describe("mysql-datetime", () => {
  it("formats an instant in UTC or an offset, truncating milliseconds", () => {
    const at = Date.UTC(2026, 2, 5, 2, 0, 7, 999);
    expect(instantToDatetime(at)).toBe("2026-03-05 02:00:07");
    expect(instantToDatetime(at, "+08:00")).toBe("2026-03-05 10:00:07");
    expect(instantToDatetime(Date.UTC(2026, 0, 1, 1, 0, 0), "-05:30")).toBe("2025-12-31 19:30:00");
  });

  it("reads DATETIME text with or without a fraction, in a zone", () => {
    expect(datetimeToInstant("2026-03-05 10:00:00.123000", "+08:00")).toBe(Date.UTC(2026, 2, 5, 2, 0, 0, 123));
    expect(datetimeToInstant("2026-03-05 02:00:07")).toBe(Date.UTC(2026, 2, 5, 2, 0, 7));
    expect(() => datetimeToInstant("2026-02-30 00:00:00")).toThrow(RangeError);
    expect(() => datetimeToInstant("yesterday")).toThrow(RangeError);
  });

  it("converts a META DTTM without any zone shift, and refuses impossible ones", () => {
    expect(dttmToDatetime("20260305020000")).toBe("2026-03-05 02:00:00");
    expect(dttmToDatetime("20261399000000")).toBeNull();
    expect(dttmToDatetime("20260229000000")).toBeNull();
    expect(dttmToDatetime("2026030502")).toBeNull();
  });

  it("accepts only fixed offsets", () => {
    expect(zoneOffsetMinutes("+08:00")).toBe(480);
    expect(zoneOffsetMinutes("-03:30")).toBe(-210);
    expect(() => zoneOffsetMinutes("Asia/Shanghai")).toThrow(RangeError);
    expect(() => zoneOffsetMinutes("+15:00")).toThrow(RangeError);
  });

  const zones = fc.constantFrom("+00:00", "+08:00", "-05:00", "+05:45");
  test.prop([fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(9998, 0, 1) }), zones])(
    "round-trips every instant to the second",
    (at, zone) => {
      expect(datetimeToInstant(instantToDatetime(at, zone), zone)).toBe(Math.floor(at / 1000) * 1000);
    },
  );
});
