/**
 * What the console writes (issue 23): fixed formats so a refresh never reflows, absent and cleared
 * values told apart in a diff, and sparkline polylines that stay inside their box with a gap where
 * a minute has no value.
 */
import { describe, expect, it } from "vitest";
import { count, dttm, duration, value } from "../console/src/format.js";
import { collectionDiff } from "../console/src/collection-diff.js";
import { endText, predictionText, reasonText } from "../console/src/message-end.js";
import { sparklineSegments } from "../console/src/sparkline-segments.js";

describe("console formats", () => {
  it("write durations, DTTM, counts and diff values in fixed forms", () => {
    expect([850, 12_400, 425_000, 3 * 3_600_000 + 120_000, 2 * 86_400_000 + 4 * 3_600_000].map(duration)).toEqual(["850 ms", "12.4 s", "7 min 05 s", "3 h 02 min", "2 d 4 h"]);
    expect(duration(null)).toBe("—");
    expect(duration(-5)).toBe("0 ms");
    expect(dttm("20260305064210")).toBe("2026-03-05 06:42:10");
    expect(dttm("garbage")).toBe("garbage");
    expect(count(1200)).toBe("1,200");
    expect([undefined, null, "A25", ["x"]].map((v) => value(v))).toEqual(["(absent)", "(cleared)", "A25", '["x"]']);
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

  it("tell absent, cleared and null apart by where the value is", () => {
    expect(["fields.ESTT", "ffid", "collections.GTDT", "row."].map((f) => [value(undefined, f), value(null, f)])).toEqual([
      ["(absent)", "(cleared)"],
      ["(absent)", "null"],
      ["(absent)", "null"],
      ["(absent)", "(cleared)"],
    ]);
    expect(value([], "collections.GTDT")).toBe("(cleared: no rows)");
    expect(value("180", "fields.PAXC")).toBe("180");
  });

  it("show a collection change row by row: added, removed, and changed with each value before → after", () => {
    const before = [
      { key: "1", values: { GATE: "A22", GOTM: "07:10" } },
      { key: "2", values: { GATE: "A25" } },
    ];
    const after = [
      { key: "1", values: { GATE: "A24", PGOT: null } },
      { key: "3", values: { GATE: "B1" } },
    ];
    expect(collectionDiff({ field: "collections.GTDT", before, after })).toEqual({
      added: [{ key: "3", values: { GATE: "B1" } }],
      removed: [{ key: "2", values: { GATE: "A25" } }],
      changed: [{ key: "1", changes: [{ name: "GATE", before: "A22", after: "A24" }, { name: "PGOT", after: null }, { name: "GOTM", before: "07:10" }] }],
    });
    expect(collectionDiff({ field: "collections.GTDT", after })?.added).toHaveLength(2);
    expect(collectionDiff({ field: "collections.GTDT", before, after: [] })?.removed).toHaveLength(2);
    expect(collectionDiff({ field: "fields.ESTT", before: "x", after: "y" })).toBeUndefined();
    expect(collectionDiff({ field: "collections.GTDT", before: "not rows", after })).toBeUndefined();
  });

  it("explain the pipeline's coded reasons and say how a message ended or would end", () => {
    expect(reasonText("stale:900101")).toBe("stale (its DTTM is older than flight 900101's last update)");
    expect(reasonText("no-flight:7(+2);stale:9")).toBe("no flight 7 and 2 more is stored; stale (its DTTM is older than flight 9's last update)");
    expect(reasonText("duplicate-of:42")).toBe("a duplicate of message 42 (same identity)");
    expect(reasonText("not well-formed: 13:23: unclosed tag: ESTT")).toBe("not well-formed: 13:23: unclosed tag: ESTT");
    expect(reasonText(null)).toBe("no reason recorded");
    // Nothing coded in it: the text comes back as it was (the console then shows no "meaning").
    expect(reasonText("attempts exhausted (3); last: UNSUPPORTED: unsupported:FLOP/RUNW")).toBe("attempts exhausted (3); last: UNSUPPORTED: unsupported:FLOP/RUNW");
    expect(endText({ status: "SKIPPED", errorClass: null, reason: "stale:1" })).toBe("SKIPPED: stale (its DTTM is older than flight 1's last update)");
    expect(endText({ status: "SUCCEEDED", errorClass: null, reason: null })).toBe("SUCCEEDED (applied)");
    expect(endText({ status: "DEAD", errorClass: "EXHAUSTED", reason: "attempts exhausted (3)" })).toBe("DEAD: EXHAUSTED — attempts exhausted (3)");
    expect(predictionText({ status: "SKIPPED", errorClass: null, reason: "ignored:FLOP/RUNW" })).toBe("would be SKIPPED: type FLOP/RUNW is ignored by the type policy");
    expect(predictionText({ status: "FAILED", errorClass: "INFRA", reason: "db down" })).toBe("would fail again: INFRA — db down");
  });
});
