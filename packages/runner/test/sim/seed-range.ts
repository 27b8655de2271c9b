import { shrink } from "./shrink.js";
import { simulate } from "./simulate.js";

/** How many seeds CI simulates (two suites, half each), unless `MSGX_SIM_SEEDS` says otherwise. */
export const CI_SEEDS = Number(process.env["MSGX_SIM_SEEDS"] ?? 10_000);

/**
 * Simulates seeds `from`..`from + count - 1`; answers each failing seed with its failure and its
 * shrunk trace (so a CI log shows how to replay it), and the figures of the range.
 */
export async function simulateRange(from: number, count: number): Promise<{ failures: string[]; virtualMs: number; faults: number; messages: number }> {
  const failures: string[] = [];
  let virtualMs = 0;
  let faults = 0;
  let messages = 0;
  for (let seed = from; seed < from + count; seed++) {
    const r = await simulate(seed);
    virtualMs += r.virtualMs;
    faults += r.faults;
    messages += r.messages;
    if (r.failure === undefined) continue;
    const small = await shrink(seed);
    failures.push(`seed ${seed}: ${r.failure}\n  replay: MSGX_SIM_SEED=${seed} pnpm sim --seeds 1 --trace\n  ${small.summary.join("\n  ")}`);
  }
  return { failures, virtualMs, faults, messages };
}
