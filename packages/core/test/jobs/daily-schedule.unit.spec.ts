import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { nextRunAt, parseTimeOfDay } from "../../src/jobs/daily-schedule.js";

const utc = (d: number, h: number, m = 0, s = 0, ms = 0) => Date.UTC(2026, 2, d, h, m, s, ms);
const DAY = 86_400_000;

describe("nextRunAt", () => {
  it("is today's 03:30 airport time when that is still ahead, else tomorrow's (UTC+8)", () => {
    // 03:30 at UTC+8 is 19:30Z of the day before.
    expect(nextRunAt(utc(9, 12), "03:30", 480)).toBe(utc(9, 19, 30));
    expect(nextRunAt(utc(9, 19, 29, 59, 999), "03:30", 480)).toBe(utc(9, 19, 30));
    expect(nextRunAt(utc(9, 19, 30), "03:30", 480)).toBe(utc(10, 19, 30));
    expect(nextRunAt(utc(9, 19, 30, 0, 1), "03:30", 480)).toBe(utc(10, 19, 30));
    // 23:59 local (15:59Z): the day rolls over locally before it does in UTC.
    expect(nextRunAt(utc(9, 15, 59), "03:30", 480)).toBe(utc(9, 19, 30));
    // 00:10 local on the 10th is 16:10Z on the 9th.
    expect(nextRunAt(utc(9, 16, 10), "03:30", 480)).toBe(utc(9, 19, 30));
  });

  it("honours other offsets, negative ones and midnight", () => {
    expect(nextRunAt(utc(9, 2), "03:30", 0)).toBe(utc(9, 3, 30));
    expect(nextRunAt(utc(9, 4), "03:30", 0)).toBe(utc(10, 3, 30));
    // UTC-5: 03:30 local is 08:30Z.
    expect(nextRunAt(utc(9, 8), "03:30", -300)).toBe(utc(9, 8, 30));
    expect(nextRunAt(utc(9, 9), "03:30", -300)).toBe(utc(10, 8, 30));
    // UTC+5:45 and a run at local midnight.
    expect(nextRunAt(utc(9, 18, 0), "00:00", 345)).toBe(utc(9, 18, 15));
    expect(nextRunAt(utc(9, 18, 15), "00:00", 345)).toBe(utc(10, 18, 15));
    // Month and year rollover.
    expect(nextRunAt(Date.UTC(2026, 11, 31, 20, 0), "03:30", 480)).toBe(Date.UTC(2027, 0, 1, 19, 30));
    expect(nextRunAt(Date.UTC(2028, 1, 28, 20, 0), "03:30", 480)).toBe(Date.UTC(2028, 1, 29, 19, 30));
  });

  it("refuses malformed times and offsets", () => {
    for (const bad of ["3:30", "24:00", "03:60", "0330", "03:30:00", "", " 03:30"]) expect(() => nextRunAt(0, bad, 480)).toThrow(RangeError);
    expect(() => nextRunAt(0, "03:30", 900)).toThrow(RangeError);
    expect(() => nextRunAt(0, "03:30", 1.5)).toThrow(RangeError);
    expect(parseTimeOfDay("23:59")).toBe(23 * 60 + 59);
  });

  test.prop([
    fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: -720, max: 840 }),
  ])("is the first instant strictly after now whose airport clock reads the time", (now, h, m, offset) => {
    const at = `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
    const next = nextRunAt(now, at, offset);
    expect(next).toBeGreaterThan(now);
    expect(next - now).toBeLessThanOrEqual(DAY);
    const local = new Date(next + offset * 60_000);
    expect([local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds(), local.getUTCMilliseconds()]).toEqual([h, m, 0, 0]);
    expect(nextRunAt(next, at, offset)).toBe(next + DAY);
    expect(nextRunAt(next - 1, at, offset)).toBe(next);
  });
});
