/**
 * `msgx compare` on 10,000 flights: two embedded runners (the built binary, PGlite) fed the same
 * generated airport day, one of them also `--differences` extra FLOP/ESTT updates on as many
 * flights. Per run: the whole command as an operator runs it (`msgx compare --url A --against B
 * --json`, a process of its own), and inside it the paging of each side's `/all/flights` over
 * HTTP and the pure `compareFlights` alone. No services needed; build the runner first.
 *
 *   node bench/run.mjs compare [--flights 10000] [--differences 100] [--runs 3]
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareFlights } from "@msgx/core";
import { airportDay } from "../packages/runner/src/demo/airport-day.js";
import { el, leaf, sisMessage } from "../packages/runner/src/demo/sis-layout.js";
import { flightsOf, httpPageReader, readFlightPages } from "../packages/runner/src/compare/flight-pages.js";
import { fmt, numArg, printTable, REPO, writeReport } from "./fault/infra.js";
import { waitQuiet } from "./fault/runner.js";

const FLIGHTS = numArg("flights", 10_000);
const DIFFERENCES = numArg("differences", 100);
const RUNS = numArg("runs", 3);
const CLI = join(REPO, "packages/runner/dist/cli.js");

interface Runner {
  readonly url: string;
  readonly child: ChildProcess;
}

async function startRunner(dataDir: string): Promise<Runner> {
  const child = spawn(process.execPath, [CLI, "run", "--data-dir", dataDir, "--http-port", "0"], { env: { ...process.env, MSGX_LOG_LEVEL: "warn" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const check = (d: Buffer) => {
      out += d.toString();
      const m = /msgx listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.on("exit", (code) => reject(new Error(`runner exited ${code}:\n${out}`)));
  });
  return { url, child };
}

async function send(url: string, xml: string): Promise<void> {
  const res = await fetch(new URL("/cminmsgs/send", url), { method: "POST", headers: { "content-type": "application/xml" }, body: xml });
  if (!res.ok) throw new Error(`ingress answered ${res.status}: ${await res.text()}`);
}

/** An ESTT update stamped at the end of the day, so it is never stale. */
const esttUpdate = (i: number, flid: string) =>
  sisMessage({ seqn: 990_000 + i, dttm: "20260305235000", type: "FLOP", styp: "ESTT" }, [el("FLOP", {}, [leaf("FLID", flid), leaf("ESTT", "05MAR262359")])]);

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "msgx-bench-compare-"));
  const runners: Runner[] = [];
  try {
    console.log(`compare: two embedded runners with ${fmt(FLIGHTS)} flights each, ${fmt(DIFFERENCES)} planted ESTT differences, ${RUNS} runs`);
    runners.push(await startRunner(join(dir, "ours")), await startRunner(join(dir, "theirs")));
    const [ours, theirs] = runners as [Runner, Runner];
    const day = airportDay({ flights: FLIGHTS, updates: 0, seed: 20260305 }).map((m) => m.xml);
    for (const r of runners) for (const xml of day) await send(r.url, xml);
    const step = Math.max(1, Math.floor(FLIGHTS / DIFFERENCES));
    for (let i = 0; i < DIFFERENCES; i++) await send(ours.url, esttUpdate(i, String(900_001 + i * step)));
    await waitQuiet(ours.url, day.length + DIFFERENCES, 600_000);
    await waitQuiet(theirs.url, day.length, 600_000);

    const rows: { run: number; commandMs: number; pageOursMs: number; pageTheirsMs: number; compareMs: number; differences: number }[] = [];
    for (let run = 1; run <= RUNS; run++) {
      let t = performance.now();
      const cli = spawnSync(process.execPath, [CLI, "compare", "--url", ours.url, "--against", theirs.url, "--json"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
      const commandMs = performance.now() - t;
      if (cli.status !== 1) throw new Error(`msgx compare exited ${cli.status}: ${cli.stderr}`);
      const reported = (JSON.parse(cli.stdout) as { differences: unknown[] }).differences.length;
      t = performance.now();
      const a = flightsOf(await readFlightPages(httpPageReader(ours.url, { timeoutMs: 60_000 }), ours.url));
      const pageOursMs = performance.now() - t;
      t = performance.now();
      const b = flightsOf(await readFlightPages(httpPageReader(theirs.url, { timeoutMs: 60_000 }), theirs.url));
      const pageTheirsMs = performance.now() - t;
      t = performance.now();
      const result = compareFlights(a, b);
      const compareMs = performance.now() - t;
      if (a.length !== FLIGHTS || b.length !== FLIGHTS || result.differences.length !== DIFFERENCES || reported !== DIFFERENCES) {
        throw new Error(`expected ${FLIGHTS} flights a side and ${DIFFERENCES} differences, got ${a.length}/${b.length} and ${result.differences.length} (command: ${reported})`);
      }
      rows.push({ run, commandMs, pageOursMs, pageTheirsMs, compareMs, differences: result.differences.length });
    }
    printTable(
      ["run", "msgx compare ms", "page ours ms", "page theirs ms", "compareFlights ms", "differences"],
      rows.map((r) => [String(r.run), r.commandMs, r.pageOursMs, r.pageTheirsMs, fmt(r.compareMs, 1), r.differences]),
    );
    console.log(`  median: msgx compare ${fmt(median(rows.map((r) => r.commandMs)))} ms, compareFlights ${fmt(median(rows.map((r) => r.compareMs)), 1)} ms`);
    console.log(`  report: ${writeReport("compare", { flights: FLIGHTS, differences: DIFFERENCES, rows })}`);
  } finally {
    for (const r of runners) r.child.kill("SIGTERM");
    await Promise.all(runners.map((r) => new Promise((resolve) => (r.child.exitCode !== null ? resolve(null) : r.child.on("exit", resolve)))));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
