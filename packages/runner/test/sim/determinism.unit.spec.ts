/**
 * The determinism check of the simulation (issue 35, item 4): a seed run twice gives the same trace,
 * line for line, and the same fingerprint; another seed gives another.
 */
import { describe, expect, it } from "vitest";
import { simulate } from "./simulate.js";

const SAMPLE = [1, 2, 3, 17, 42, 99, 1_234, 65_537];

describe("simulation determinism", () => {
  it("replays every sampled seed exactly", async () => {
    for (const seed of SAMPLE) {
      const [a, b] = [await simulate(seed, { trace: true }), await simulate(seed, { trace: true })];
      expect(a.lines!.length, `seed ${seed} traced nothing`).toBeGreaterThan(100);
      expect(b.lines, `seed ${seed} ran differently the second time`).toEqual(a.lines);
      expect(b.fingerprint).toBe(a.fingerprint);
    }
  }, 300_000);

  it("tells seeds apart, and a traced run from an untraced one not at all", async () => {
    const [one, two, quiet] = [await simulate(1, { trace: true }), await simulate(2, { trace: true }), await simulate(1, { fingerprint: true })];
    expect(two.fingerprint).not.toBe(one.fingerprint);
    expect(quiet.fingerprint).toBe(one.fingerprint);
    expect(quiet.lines).toBeUndefined();
  }, 300_000);
});
