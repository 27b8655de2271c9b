import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GapTracker } from "@msgx/core";

const GRACE = 5_000;

describe("GapTracker (safe horizon)", () => {
  it("stops below a missing id, moves on when it appears, and passes it after the grace", () => {
    let s = GapTracker.observe(GapTracker.initial(0), [1, 2, 4, 5], 0);
    s = GapTracker.advance(s, 0, GRACE).state;
    expect(s.horizon).toBe(2);
    expect(GapTracker.blockingGap(s)).toEqual({ from: 3, to: 3, since: 0 });
    const filled = GapTracker.advance(GapTracker.observe(s, [3], 1_000), 1_000, GRACE);
    expect(filled.state.horizon).toBe(5);
    expect(filled.passed).toEqual([]);
    const passed = GapTracker.advance(s, GRACE, GRACE);
    expect(passed.state.horizon).toBe(5);
    expect(passed.passed).toEqual([{ from: 3, to: 3, since: 0 }]);
  });

  it("splits a wide gap when an id inside it appears", () => {
    let s = GapTracker.observe(GapTracker.initial(10), [20], 0);
    s = GapTracker.observe(s, [15], 1);
    expect(s.gaps).toEqual([
      { from: 11, to: 14, since: 0 },
      { from: 16, to: 19, since: 0 },
    ]);
  });

  it("never passes an id that is neither seen nor older than the grace (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.subarray([...Array(30).keys()].map((i) => i + 1)), fc.integer({ min: 0, max: 3_000 })), { maxLength: 12 }),
        (scans) => {
          let s = GapTracker.initial(0);
          let now = 0;
          const seen = new Set<number>();
          const firstMissing = new Map<number, number>();
          for (const [ids, dt] of scans) {
            now += dt;
            s = GapTracker.observe(s, ids, now);
            ids.forEach((i) => seen.add(i));
            const maxSeen = Math.max(0, ...seen);
            for (let i = 1; i < maxSeen; i++) if (!seen.has(i) && !firstMissing.has(i)) firstMissing.set(i, now);
            s = GapTracker.advance(s, now, GRACE).state;
            for (let i = 1; i <= s.horizon; i++) {
              const ok = seen.has(i) || now - (firstMissing.get(i) ?? now) >= GRACE;
              expect(ok, `horizon ${s.horizon} passed id ${i} too early`).toBe(true);
            }
          }
          // With every id seen, the horizon reaches the top.
          s = GapTracker.advance(GapTracker.observe(s, [...Array(30).keys()].map((i) => i + 1), now), now, GRACE).state;
          expect(s.horizon).toBe(30);
        },
      ),
      { numRuns: 500 },
    );
  });
});
