/**
 * `pnpm sim --seeds N [--from S] [--trace] [--shrink]`: runs seeds S..S+N-1 (S: `MSGX_SIM_SEED`, else 1)
 * of the deterministic simulation (docs/simulation.md). Prints each failing seed with its shrunk
 * trace, then the last line `simulation: N seeds, F failed (seeds S..E)`; exits 1 when one failed.
 * `--trace` prints every seed's trace (the same bytes on every run of a seed). `--mutate K` plants
 * mutation K of mutations.ts (a guard removed); `--mutations` prints the mutation check's table.
 */
import { firstCatch, MUTATION_SEED_BOUND, MUTATIONS } from "./mutations.js";
import { shrink } from "./shrink.js";
import { simulate } from "./simulate.js";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const seeds = Number(option("--seeds") ?? 1);
const from = Number(option("--from") ?? process.env["MSGX_SIM_SEED"] ?? 1);
const trace = args.includes("--trace");
const mutation = option("--mutate") === undefined ? undefined : MUTATIONS[Number(option("--mutate"))];
if (option("--mutate") !== undefined && mutation === undefined) {
  console.error(`--mutate: a number from 0 to ${MUTATIONS.length - 1} (mutations.ts)`);
  process.exit(2);
}
const planted = mutation ? { mutate: mutation.plant } : {};
if (mutation) console.log(`mutation: ${mutation.guard} removed (${mutation.how})`);
if (!Number.isInteger(seeds) || seeds < 1 || !Number.isInteger(from) || from < 0) {
  console.error("usage: pnpm sim --seeds N [--from S] [--trace]   (S defaults to MSGX_SIM_SEED, else 1)");
  process.exit(2);
}

if (args.includes("--mutations")) {
  // The mutation check's table (docs/simulation.md): each guard removed, the first seed that caught it.
  console.log("| guard removed | how the simulation removes it | caught by seed | the invariant that broke |");
  console.log("| --- | --- | --- | --- |");
  let missed = 0;
  for (const m of MUTATIONS) {
    const caught = await firstCatch(m, simulate);
    if (!caught) missed += 1;
    console.log(`| ${m.guard} | ${m.how} | ${caught ? caught.seed : `not within ${MUTATION_SEED_BOUND}`} | ${caught ? caught.failure.replaceAll("|", "/") : ""} |`);
  }
  process.exit(missed === 0 ? 0 : 1);
}

let failed = 0;
let virtualMs = 0;
let faults = 0;
let messages = 0;
const started = performance.now();
const cpuStarted = process.cpuUsage();
for (let seed = from; seed < from + seeds; seed++) {
  const result = await simulate(seed, { trace, ...planted });
  virtualMs += result.virtualMs;
  faults += result.faults;
  messages += result.messages;
  if (trace) for (const line of result.lines ?? []) console.log(line);
  if (result.failure === undefined) continue;
  failed += 1;
  console.log(`seed ${seed} FAILED: ${result.failure}`);
  const small = await shrink(seed, planted);
  console.log(`shrunk trace of seed ${seed} (${small.faults} of ${result.faults} faults kept, of kinds ${small.kinds.join(", ") || "none"}; ${small.messages} messages; replay: MSGX_SIM_SEED=${seed} pnpm sim --seeds 1 --trace${mutation ? ` --mutate ${MUTATIONS.indexOf(mutation)}` : ""}):`);
  for (const line of small.summary) console.log(`  ${line}`);
}
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);
console.log(
  `per seed: ${(virtualMs / seeds / 1000).toFixed(0)} s virtual, ${(faults / seeds).toFixed(1)} faults, ${(messages / seeds).toFixed(1)} messages; ${(wall / seeds).toFixed(1)} ms wall-clock, ${((cpu.user + cpu.system) / 1000 / seeds).toFixed(1)} ms CPU`,
);
console.log(`simulation: ${seeds} seeds, ${failed} failed (seeds ${from}..${from + seeds - 1})`);
process.exit(failed === 0 ? 0 : 1);
