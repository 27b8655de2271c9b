/**
 * The console's operator data from the built binary (issue 23, docs/operations.md "Console data"):
 * an embedded runner shows itself as the leader with its epoch and a history whose current minute
 * carries its gauges; on PostgreSQL the leader lists a standby beside itself while it waits, and
 * no longer once the standby stopped cleanly (its row deleted).
 */
import { describe, expect, it } from "vitest";
import { eventually, PROBES, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { pgRunnerWorld } from "./pg-runner-world.js";

const { url: PG_URL, run, client: pgClient, gate: pgGate, dataDir } = await pgRunnerWorld("console", "console runners e2e (leader and standby)");

interface Runner {
  runnerId: string;
  host: string;
  pid: number;
  role: string;
  epoch?: number;
  startedAt: number;
  seenAt: number;
  stale: boolean;
}
const getJson = async <T>(r: RunnerProcess, path: string): Promise<T> => {
  const res = await fetch(new URL(path, r.url));
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};
const runners = async (r: RunnerProcess) => (await getJson<{ runners: Runner[] }>(r, "/admin/runners")).runners;

describe("an embedded runner (the built binary)", () => {
  it("shows itself as the leader with its epoch, and a history with its gauges in the current minute", async () => {
    const r = await spawnRunner(["--data-dir", dataDir()]);
    try {
      const list = await eventually(async () => {
        const l = await runners(r);
        return l.length > 0 ? l : undefined;
      }, 15_000, "this runner's presence row");
      expect(list).toEqual([{ runnerId: expect.stringContaining(`/${r.child.pid}/`), host: expect.any(String), pid: r.child.pid, role: "leader", epoch: expect.any(Number), startedAt: expect.any(Number), seenAt: expect.any(Number), stale: false }]);

      const samples = await eventually(async () => {
        const s = (await getJson<{ samples: Record<string, number | null>[] }>(r, "/admin/status/history?minutes=5")).samples;
        return s.at(-1)?.["backlog"] !== null ? s : undefined;
      }, 15_000, "the first status sample");
      expect(samples).toHaveLength(5);
      expect(samples.map((s) => s["at"])).toEqual([...samples.map((s) => s["at"])].sort((a, b) => a! - b!));
      expect(samples.at(-1)).toMatchObject({ processed: expect.any(Number), sent: expect.any(Number), backlog: 0, headAgeMs: 0, dead: 0, backfillDebt: 0 });
      expect((await fetch(new URL("/admin/status/history?minutes=0", r.url))).status).toBe(400);
    } finally {
      await stopRunner(r, "console runners e2e");
    }
  }, 120_000);
});

describe.skipIf(!pgGate.available)("a leader and a standby on PostgreSQL (the built binary)", () => {
  it("the leader lists the standby beside itself while it waits, and not once it stopped cleanly", async () => {
    await pgClient.query(`CREATE SCHEMA ${run}`);
    const env = { MSGX_PG_SCHEMA: run };
    const leader = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir()], env);
    let standby: RunnerProcess | undefined;
    try {
      standby = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir()], env, 30_000, PROBES);
      const standbyPid = standby.child.pid;
      const both = await eventually(async () => {
        const l = await runners(leader);
        return l.length === 2 ? l : undefined;
      }, 30_000, "leader and standby listed");
      expect(both.map((x) => [x.role, x.pid, x.stale])).toEqual([
        ["leader", leader.child.pid, false],
        ["standby", standbyPid, false],
      ]);
      expect(both[0]!.epoch).toEqual(expect.any(Number));
      expect(both[1]).not.toHaveProperty("epoch");

      standby.child.kill("SIGTERM");
      expect(await standby.exited).toBe(0);
      expect((await runners(leader)).map((x) => x.pid)).toEqual([leader.child.pid]);
    } finally {
      if (standby && standby.child.exitCode === null) standby.child.kill("SIGKILL");
      await stopRunner(leader, "console runners e2e");
    }
  }, 120_000);
});
