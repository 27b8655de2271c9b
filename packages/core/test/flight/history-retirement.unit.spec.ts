import { describe, expect, it } from "vitest";
import type { FlightState } from "../../src/model/flight-state.js";
import { decideRetirement, retirementCutoffDay } from "../../src/flight/history-retirement.js";

const flight = (flid: string, operationDay: string | null, deleted = false): FlightState => ({
  flid,
  ffid: null,
  operationDay,
  stateVersion: 4,
  lastMsgId: 10,
  lastSrcDttm: "20260301020000",
  deleted,
  scalars: { ALCD: "CZ" },
  collections: {},
});

const CHINA = { retentionDays: 3, airportUtcOffsetMinutes: 480 };

describe("history retirement", () => {
  it("the cutoff is the airport-local date of now minus the retention", () => {
    // 2026-03-10 15:59Z is 23:59 local on the 10th; 16:00Z is already the 11th.
    expect(retirementCutoffDay(Date.UTC(2026, 2, 10, 15, 59), CHINA)).toBe("20260307");
    expect(retirementCutoffDay(Date.UTC(2026, 2, 10, 16, 0), CHINA)).toBe("20260308");
    expect(retirementCutoffDay(Date.UTC(2026, 2, 2, 12, 0), { retentionDays: 3, airportUtcOffsetMinutes: 0 })).toBe("20260227");
  });

  it("counts from the operation day now falls in: with the day starting at 04:00, 03:59 local is still the day before", () => {
    const fromFour = { ...CHINA, dayStartOffsetMinutes: 240 };
    // 2026-03-10 19:59Z is 03:59 local on the 11th, still operation day 0310; 20:00Z is 04:00, operation day 0311.
    expect(retirementCutoffDay(Date.UTC(2026, 2, 10, 19, 59), fromFour)).toBe("20260307");
    expect(retirementCutoffDay(Date.UTC(2026, 2, 10, 20, 0), fromFour)).toBe("20260308");
    // The flight of 0307 stays live through 03:59 of the 11th, and is retired from 04:00.
    const kept = decideRetirement([flight("1", "20260307")], Date.UTC(2026, 2, 10, 19, 59), fromFour);
    expect(kept.retired).toEqual([]);
    expect(decideRetirement([flight("1", "20260307")], Date.UTC(2026, 2, 10, 20, 0), fromFour).retired.map((f) => f.flid)).toEqual(["1"]);
  });

  it("retires flights of days before the cutoff, deleted or not; tombstones only those not deleted", () => {
    const flights = [
      flight("1", "20260306"),
      flight("2", "20260306", true),
      flight("3", "20260307"),
      flight("4", "20260310", true),
      flight("5", null),
    ];
    const d = decideRetirement(flights, Date.UTC(2026, 2, 10, 4, 0), CHINA);
    expect(d.cutoffDay).toBe("20260307");
    expect(d.retired.map((f) => f.flid)).toStrictEqual(["1", "2"]);
    expect(d.tombstones).toStrictEqual([{ ...flight("1", "20260306"), deleted: true, stateVersion: 5 }]);
  });

  it("refuses a negative or fractional retention", () => {
    expect(() => decideRetirement([], 0, { retentionDays: -1, airportUtcOffsetMinutes: 0 })).toThrow(RangeError);
    expect(() => decideRetirement([], 0, { retentionDays: 1.5, airportUtcOffsetMinutes: 0 })).toThrow(RangeError);
  });
});
