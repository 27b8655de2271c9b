import { describe, expect, it } from "vitest";
import { SUITE_FIRST_SEED, SUITE_SEEDS, simulateRange } from "./seed-range.js";

/**
 * One half of the vitest run's sample of seeds as a suite: each seed runs two runners over the
 * in-memory ports with faults drawn by the seed, checking the invariants after every step. Two
 * spec files, one per half, so vitest runs the halves in two workers side by side.
 */
export function describeSeedHalf(half: 1 | 2): void {
  const count = Math.ceil(SUITE_SEEDS / 2);
  const from = half === 1 ? SUITE_FIRST_SEED : SUITE_FIRST_SEED + count;
  describe("deterministic simulation", () => {
    it(`keeps every invariant over seeds ${from}..${from + count - 1}`, async () => {
      const r = await simulateRange(from, count);
      console.info(`[simulation] seeds ${from}..${from + count - 1}: ${(r.virtualMs / count / 1000).toFixed(0)} s virtual and ${(r.faults / count).toFixed(1)} faults per seed, ${r.messages} messages`);
      // The open findings (docs/simulation.md, Findings) are reported, not failed: msgx has no fix for them yet.
      if (r.known.length > 0) console.info(`[simulation] open findings of docs/simulation.md, at:\n${r.known.join("\n")}`);
      expect(r.failures).toEqual([]);
      expect(r.faults / count, "the seeds inject faults").toBeGreaterThan(1);
    }, 900_000);
  });
}
