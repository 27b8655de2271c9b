import { isOpenFinding } from "./sim-invariants.js";
import { shrink } from "./shrink.js";
import { simulate } from "./simulate.js";

/**
 * How many seeds the vitest run simulates (two suites, half each), unless `MSGX_SIM_SEEDS` says
 * otherwise: a sample. CI's own step (`.ci/run`: `pnpm sim --seeds 10000 --workers 2`) runs seeds
 * 1..10,000 before the suites; the sample runs the seeds after those, from `SUITE_FIRST_SEED`.
 */
export const SUITE_SEEDS = Number(process.env["MSGX_SIM_SEEDS"] ?? 1_000);
export const SUITE_FIRST_SEED = 10_001;

/**
 * Simulates seeds `from`..`from + count - 1`; answers each failing seed with its failure and its
 * shrunk trace (so a CI log shows how to replay it), and the figures of the range. A seed that
 * breaks only on an open finding of docs/simulation.md (`isOpenFinding`) is answered apart,
 * in `known`: the suites report it and fail on anything else.
 */
export async function simulateRange(from: number, count: number): Promise<{ failures: string[]; known: string[]; virtualMs: number; faults: number; messages: number }> {
  const failures: string[] = [];
  const known: string[] = [];
  let virtualMs = 0;
  let faults = 0;
  let messages = 0;
  for (let seed = from; seed < from + count; seed++) {
    const r = await simulate(seed);
    virtualMs += r.virtualMs;
    faults += r.faults;
    messages += r.messages;
    if (r.failure === undefined) continue;
    if (isOpenFinding(r.failure)) {
      known.push(`seed ${seed}: ${r.failure}`);
      continue;
    }
    const small = await shrink(seed);
    failures.push(`seed ${seed}: ${r.failure}\n  replay: MSGX_SIM_SEED=${seed} pnpm sim --seeds 1 --trace\n  ${small.summary.join("\n  ")}`);
  }
  return { failures, known, virtualMs, faults, messages };
}
