/**
 * The whole exchange under deterministic simulation (issue 35, docs/simulation.md), half 1 of
 * CI's seeds: each seed runs two runners over the in-memory ports with faults drawn by the seed,
 * checking the invariants after every step. The other half runs beside it in another worker.
 */
import { describe, expect, it } from "vitest";
import { CI_SEEDS, simulateRange } from "./seed-range.js";

const from = 1;
const count = Math.ceil(CI_SEEDS / 2);

describe("deterministic simulation", () => {
  it(`keeps every invariant over seeds ${from}..${from + count - 1}`, async () => {
    const r = await simulateRange(from, count);
    console.info(`[simulation] seeds ${from}..${from + count - 1}: ${(r.virtualMs / count / 1000).toFixed(0)} s virtual and ${(r.faults / count).toFixed(1)} faults per seed, ${r.messages} messages`);
    // The open finding (docs/simulation.md, Findings) is reported, not failed: msgx has no fix for it yet.
    if (r.known.length > 0) console.info(`[simulation] the open finding "stale leader's send", at:\n${r.known.join("\n")}`);
    expect(r.failures).toEqual([]);
    expect(r.faults / count, "the seeds inject faults").toBeGreaterThan(1);
  }, 900_000);
});
