import { spawn } from "node:child_process";

/** What a run of seeds adds up to: the figures `pnpm sim` prints. */
export interface SeedTotals {
  readonly seeds: number;
  readonly failed: number;
  readonly virtualMs: number;
  readonly faults: number;
  readonly messages: number;
  /** CPU the process spent simulating (user + system), in ms. */
  readonly cpuMs: number;
  /** The pumps' pipelined steps: speculations started, and those whose decision was committed. */
  readonly speculations: number;
  readonly speculatedDecisions: number;
}

/** The line a worker ends with: its totals, for the parent to add up (never shown). */
const PART = "sim-part ";

/** Prints `totals` as a worker's last line, then exits once everything written reached the pipe (a large trace too). */
export function reportPart(totals: SeedTotals): void {
  process.stdout.write(`${PART}${JSON.stringify(totals)}\n`, () => process.exit(0));
}

/** Splits seeds `from`..`from + seeds - 1` into `workers` contiguous ranges of nearly equal size (none empty). */
export function splitSeeds(from: number, seeds: number, workers: number): { from: number; seeds: number }[] {
  const n = Math.min(workers, seeds);
  const ranges: { from: number; seeds: number }[] = [];
  let next = from;
  for (let i = 0; i < n; i++) {
    const count = Math.floor(seeds / n) + (i < seeds % n ? 1 : 0);
    ranges.push({ from: next, seeds: count });
    next += count;
  }
  return ranges;
}

/**
 * Runs the seed range in `workers` processes of this same script side by side (`--from`/`--seeds`
 * of its own range each, `--part`, and `passthrough`), one range each. Each worker's output (failing
 * seeds, their shrunk traces, `--trace` lines) is printed once it has finished, in range order, so
 * the output does not depend on which worker ends first; answers the totals of every range.
 */
export async function runInWorkers(script: string, from: number, seeds: number, workers: number, passthrough: readonly string[]): Promise<SeedTotals> {
  const parts = await Promise.all(
    splitSeeds(from, seeds, workers).map(
      (range) =>
        new Promise<{ output: string; totals: SeedTotals }>((resolve, reject) => {
          const child = spawn(process.execPath, [...process.execArgv, script, "--from", String(range.from), "--seeds", String(range.seeds), "--part", ...passthrough], {
            stdio: ["ignore", "pipe", "inherit"],
          });
          const chunks: Buffer[] = [];
          child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
          child.on("error", reject);
          child.on("close", (code) => {
            const output = Buffer.concat(chunks).toString("utf8");
            const last = output.lastIndexOf(`\n${PART}`) + 1;
            const tail = output.slice(last);
            if (!tail.startsWith(PART)) return reject(new Error(`simulation worker for seeds ${range.from}..${range.from + range.seeds - 1} ended (exit ${code}) without its totals:\n${output}`));
            resolve({ output: output.slice(0, last), totals: JSON.parse(tail.slice(PART.length)) as SeedTotals });
          });
        }),
    ),
  );
  for (const { output } of parts) process.stdout.write(output);
  const sum = (key: keyof SeedTotals) => parts.reduce((s, p) => s + p.totals[key], 0);
  return { seeds: sum("seeds"), failed: sum("failed"), virtualMs: sum("virtualMs"), faults: sum("faults"), messages: sum("messages"), cpuMs: sum("cpuMs"), speculations: sum("speculations"), speculatedDecisions: sum("speculatedDecisions") };
}
