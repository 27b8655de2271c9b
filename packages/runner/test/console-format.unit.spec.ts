/**
 * What the console writes (issue 23): fixed formats so a refresh never reflows, absent and cleared
 * values told apart in a diff, and sparkline polylines that stay inside their box with a gap where
 * a minute has no value.
 */
import { describe, expect, it } from "vitest";
import { count, dttm, duration, value } from "../console/src/format.js";
import { sparklineSegments } from "../console/src/sparkline-segments.js";

describe("console formats", () => {
  it("write durations, DTTM, counts and diff values in fixed forms", () => {
    expect([850, 12_400, 425_000, 3 * 3_600_000 + 120_000, 2 * 86_400_000 + 4 * 3_600_000].map(duration)).toEqual(["850 ms", "12.4 s", "7 min 05 s", "3 h 02 min", "2 d 4 h"]);
    expect(duration(null)).toBe("—");
    expect(duration(-5)).toBe("0 ms");
    expect(dttm("20260305064210")).toBe("2026-03-05 06:42:10");
    expect(dttm("garbage")).toBe("garbage");
    expect(count(1200)).toBe("1,200");
    expect([undefined, null, "A25", ["x"]].map(value)).toEqual(["(absent)", "(cleared)", "A25", '["x"]']);
  });

  it("draw sparklines inside the box, one polyline per run of known values", () => {
    const segments = sparklineSegments([1, 5, null, 3, 9], 100, 20);
    expect(segments).toHaveLength(2);
    const points = segments.flatMap((s) => s.split(" ").map((p) => p.split(",").map(Number)));
    for (const [x, y] of points) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(100);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(20);
    }
    expect(points[0]).toEqual([0, 18]); // the smallest value at the bottom (2 px padding)
    expect(points.at(-1)).toEqual([100, 2]); // the largest at the top, the last at the right edge
    expect(sparklineSegments([7], 100, 20)).toEqual([]);
    expect(sparklineSegments([null, null], 100, 20)).toEqual([]);
    expect(sparklineSegments([4, 4, 4], 100, 20)).toEqual(["0.0,10.0 50.0,10.0 100.0,10.0"]);
    // A lone known minute (a runner that just started) is one point, drawn as a dot.
    expect(sparklineSegments([null, 3, null], 100, 20)).toEqual(["50.0,10.0"]);
  });
});
