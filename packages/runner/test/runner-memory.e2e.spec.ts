/**
 * The idle embedded runner's memory: `msgx run` on a fresh data directory (PGlite created by the
 * init child), after a small airport day through the demo, stays under 250 MB resident, and so
 * does a restart on the same directory. Before issue 22 it held 340–850 MB: PGlite's initdb heap
 * in process, PostgreSQL's 128 MB of shared buffers, and V8's second WebAssembly tier.
 * Memory is not wall-clock: a loaded machine changes when, not how much; the test gives the runner
 * minutes to get there and asserts that it then holds for 20 s.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, spawnRunner, type RunnerProcess } from "./runner-process.js";

/** The bound for an idle embedded runner. */
const IDLE_RSS_LIMIT_MB = 250;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Resident set of a process in MB, as `ps` reports it. */
const rssMb = (pid: number): number => Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;

/**
 * Samples the runner's RSS every 2 s while it idles, until ten samples in a row (20 s) are under
 * the limit, or three minutes pass; returns the last ten. V8 gives back its young generation,
 * grown under load, only some seconds after the load ends, so the first samples may be higher.
 */
async function idleRss(runner: RunnerProcess): Promise<number[]> {
  const samples: number[] = [];
  for (const deadline = Date.now() + 180_000; ; ) {
    samples.push(Math.round(rssMb(runner.child.pid!)));
    const last = samples.slice(-10);
    if ((last.length === 10 && last.every((mb) => mb < IDLE_RSS_LIMIT_MB)) || Date.now() > deadline) return last;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

async function stop(runner: RunnerProcess): Promise<void> {
  runner.child.kill("SIGTERM");
  expect(await runner.exited).toBe(0);
}

describe("msgx run (embedded) memory", () => {
  it(`an idle embedded runner holds under ${IDLE_RSS_LIMIT_MB} MB, after a first start with a demo day and after a restart`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "msgx-rss-"));
    dirs.push(dataDir);

    const first = await spawnRunner(["--data-dir", dataDir], {}, 120_000);
    try {
      // The cluster was made by the init child, complete, with no staging directory left.
      expect(existsSync(join(dataDir, "pglite", "PG_VERSION"))).toBe(true);
      expect(readdirSync(dataDir).filter((f) => f.includes(".init-"))).toEqual([]);
      const summary = execFileSync(process.execPath, [CLI, "demo", "--url", first.url, "--flights", "100", "--updates", "500"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      expect(summary).toMatch(/processed: .*SUCCEEDED \d+/);
      // Over --url the demo cannot read the runner's events: it says where they are instead.
      expect(summary).toContain("events:      not counted with --url (in the runner's Kafka topics, or events/<topic>.jsonl in its data directory)");
      const afterDemo = await idleRss(first);
      expect(Math.max(...afterDemo), `idle RSS (MB) after a first start and a demo day: ${afterDemo.join(", ")}`).toBeLessThan(IDLE_RSS_LIMIT_MB);
    } finally {
      await stop(first);
    }

    const second = await spawnRunner(["--data-dir", dataDir], {}, 120_000);
    try {
      const restarted = await idleRss(second);
      expect(Math.max(...restarted), `idle RSS (MB) after a restart: ${restarted.join(", ")}`).toBeLessThan(IDLE_RSS_LIMIT_MB);
    } finally {
      await stop(second);
    }
  }, 900_000);
});
