/**
 * `pnpm sim --seeds N [--from S] [--workers W] [--trace]`: runs seeds S..S+N-1 (S: `MSGX_SIM_SEED`,
 * else 1) of the deterministic simulation (docs/simulation.md), in W processes side by side (1 by
 * default), each a contiguous part of the range. Prints each failing seed with its shrunk trace,
 * the figures of a seed (virtual time, faults, messages, CPU) and the wall-clock time of the run,
 * then the last line `simulation: N seeds, F failed (seeds S..E)`; exits 1 when one failed.
 * `--trace` prints every seed's trace (the same bytes on every run of a seed, in seed order
 * whatever W). `--mutate K` plants mutation K of mutations.ts (a guard removed); `--mutations`
 * prints the mutation check's table.
 */
import { firstCatch, MUTATION_SEED_BOUND, MUTATIONS } from "./mutations.js";
import { shrink } from "./shrink.js";
import { isOpenFinding } from "./sim-invariants.js";
import { simulate } from "./simulate.js";
import { reportPart, runInWorkers, type SeedTotals } from "./sim-workers.js";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const seeds = Number(option("--seeds") ?? 1);
const from = Number(option("--from") ?? process.env["MSGX_SIM_SEED"] ?? 1);
const trace = args.includes("--trace");
const workers = Number(option("--workers") ?? 1);
/** Set in a worker process of `--workers`: it runs its part of the range and ends with its totals. */
const part = args.includes("--part");
const mutation = option("--mutate") === undefined ? undefined : MUTATIONS[Number(option("--mutate"))];
if (option("--mutate") !== undefined && mutation === undefined) {
  console.error(`--mutate: a number from 0 to ${MUTATIONS.length - 1} (mutations.ts)`);
  process.exit(2);
}
const planted = mutation ? { mutate: mutation.plant } : {};
if (mutation && !part) console.log(`mutation: ${mutation.guard} removed (${mutation.how})`);
if (!Number.isInteger(seeds) || seeds < 1 || !Number.isInteger(from) || from < 0 || !Number.isInteger(workers) || workers < 1) {
  console.error("usage: pnpm sim --seeds N [--from S] [--workers W] [--trace]   (S defaults to MSGX_SIM_SEED, else 1; W processes, default 1)");
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

/** Runs seeds `from`..`from + count - 1` here, printing each failure with its shrunk trace (and every trace with `--trace`). */
async function runSeeds(first: number, count: number): Promise<SeedTotals> {
  let failed = 0;
  let virtualMs = 0;
  let faults = 0;
  let messages = 0;
  let speculations = 0;
  let speculatedDecisions = 0;
  const cpuStarted = process.cpuUsage();
  for (let seed = first; seed < first + count; seed++) {
    const result = await simulate(seed, { trace, ...planted });
    virtualMs += result.virtualMs;
    faults += result.faults;
    messages += result.messages;
    speculations += result.speculations.started;
    speculatedDecisions += result.speculations.decided;
    if (trace) for (const line of result.lines ?? []) console.log(line);
    if (result.failure === undefined) continue;
    failed += 1;
    const known = isOpenFinding(result.failure) ? " (an open finding of docs/simulation.md)" : "";
    console.log(`seed ${seed} FAILED${known}: ${result.failure}`);
    const small = await shrink(seed, planted);
    console.log(`shrunk trace of seed ${seed} (${small.faults} of ${result.faults} faults kept, of kinds ${small.kinds.join(", ") || "none"}; ${small.messages} messages; replay: MSGX_SIM_SEED=${seed} pnpm sim --seeds 1 --trace${mutation ? ` --mutate ${MUTATIONS.indexOf(mutation)}` : ""}):`);
    for (const line of small.summary) console.log(`  ${line}`);
  }
  const cpu = process.cpuUsage(cpuStarted);
  return { seeds: count, failed, virtualMs, faults, messages, cpuMs: (cpu.user + cpu.system) / 1000, speculations, speculatedDecisions };
}

if (part) {
  reportPart(await runSeeds(from, seeds));
} else {
  const started = performance.now();
  // Each worker is given its own range; every other argument (--trace, --mutate K) as it came.
  const ranged = ["--from", "--seeds", "--workers"];
  const passthrough = args.filter((a, i) => !ranged.includes(a) && !ranged.includes(args[i - 1] ?? ""));
  const totals = workers > 1 && seeds > 1 ? await runInWorkers(process.argv[1]!, from, seeds, workers, passthrough) : await runSeeds(from, seeds);
  const wall = performance.now() - started;
  const used = Math.min(workers, seeds);
  console.log(
    `per seed: ${(totals.virtualMs / seeds / 1000).toFixed(0)} s virtual, ${(totals.faults / seeds).toFixed(1)} faults, ${(totals.messages / seeds).toFixed(1)} messages, ${(totals.cpuMs / seeds).toFixed(1)} ms CPU, ` +
      `${(totals.speculations / seeds).toFixed(1)} pipelined speculations (${(totals.speculatedDecisions / seeds).toFixed(1)} decisions committed); ` +
      `${(wall / 1000).toFixed(1)} s wall-clock in all (${used} worker${used > 1 ? "s" : ""})`,
  );
  // Exits once the output reached its pipe (a trace is long).
  process.stdout.write(`simulation: ${seeds} seeds, ${totals.failed} failed (seeds ${from}..${from + seeds - 1})\n`, () => process.exit(totals.failed === 0 ? 0 : 1));
}
