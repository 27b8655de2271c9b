/**
 * Leadership as a lease on PostgreSQL, from the built binary (issue 24, docs/reliability.md
 * "Leadership lease"): two runners share a schema; the leader is frozen (SIGSTOP) beyond its
 * lease; the standby takes over and finishes the work; the old leader, woken (SIGCONT), steps
 * down with exit 3. Every message is processed exactly once, none is lost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { gateService } from "@msgx/core/testing";
import { airportDay } from "../src/demo/airport-day.js";
import { eventually, post, PROBES, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const run = `lease_${process.pid}_${Date.now() % 100_000}`;
const TTL_MS = 2_000;
const env = {
  MSGX_PG_SCHEMA: run,
  MSGX_PG_LEASE_TTL_MS: String(TTL_MS),
  MSGX_PIPELINE_POLL_INTERVAL_MS: "100",
  MSGX_SCHD_FLUSH_PERIOD_MS: "200",
};
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "msgx-lease-"));
  dirs.push(dir);
  return dir;
};

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const pgGate = await gateService("PostgreSQL", "leadership lease e2e (SIGSTOP the leader)", async () => void (await pgClient.connect()));
afterAll(async () => {
  if (pgGate.available) await pgClient.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
  await pgClient.end().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const readyz = async (r: RunnerProcess) => {
  const res = await fetch(new URL("/readyz", r.url));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const byStatus = async (): Promise<Record<string, number>> => {
  const { rows } = await pgClient.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM ${run}.proc_state GROUP BY status`);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
};
const sendAll = async (r: RunnerProcess, xmls: readonly string[]) => {
  for (const xml of xmls) expect((await post(r.url, xml)).status).toBe(200);
};

describe.skipIf(!pgGate.available)("a leader frozen beyond its lease (the built binary on PostgreSQL)", () => {
  it("the standby takes over within ttl + its poll; the woken leader exits 3; every message processed once, none lost", async () => {
    const day = airportDay({ flights: 20, updates: 140, seed: 24 });
    const half = Math.floor(day.length / 2);
    let leader: RunnerProcess | undefined;
    let standby: RunnerProcess | undefined;
    try {
      leader = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir()], env);
      standby = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir()], env, 30_000, PROBES);
      const s = standby;
      await eventually(async () => ((await readyz(s)).body["role"] === "standby" ? true : undefined), 30_000, "standby role");

      await sendAll(leader, day.slice(0, half).map((m) => m.xml));
      leader.child.kill("SIGSTOP");
      const frozenAt = Date.now();
      await eventually(async () => ((await readyz(s)).status === 200 ? true : undefined), 30_000, "the standby leads");
      const takeoverMs = Date.now() - frozenAt;
      console.log(`leadership lease e2e: ttl ${TTL_MS} ms, standby poll 1000 ms → the standby led ${takeoverMs} ms after the leader froze`);

      await sendAll(s, day.slice(half).map((m) => m.xml));
      const statuses = await eventually(async () => {
        const st = await byStatus();
        const done = (st["SUCCEEDED"] ?? 0) + (st["SKIPPED"] ?? 0) + (st["DEAD"] ?? 0);
        return done === day.length ? st : undefined;
      }, 60_000, "every message finished");
      expect(Object.values(statuses).reduce((a, b) => a + b, 0)).toBe(day.length);
      expect(statuses["DEAD"] ?? 0).toBe(day.filter((m) => m.kind === "malformed").length);

      leader.child.kill("SIGCONT");
      const code = await Promise.race([leader.exited, new Promise((r) => setTimeout(() => r("still running"), 20_000))]);
      expect(code).toBe(3);
      const stepDown = leader.output().split("\n").filter((l) => l.includes("leadership lost"));
      expect(stepDown.length).toBeGreaterThan(0);
      console.log(`leadership lease e2e: the woken leader exited ${code}: ${stepDown[0]!.slice(0, 300)}`);

      // Nothing the woken leader did landed: no record changed, no event written twice.
      expect(await byStatus()).toEqual(statuses);
      const dup = await pgClient.query(
        `SELECT source_msg_id, target, partition_key, event_type, count(*) FROM ${run}.msg_event GROUP BY 1, 2, 3, 4 HAVING count(*) > 1`,
      );
      expect(dup.rows).toEqual([]);
      const epochs = await pgClient.query<{ epoch: string }>(`SELECT epoch FROM ${run}.leadership`);
      expect(Number(epochs.rows[0]!.epoch)).toBe(2);
    } finally {
      if (leader?.child.exitCode === null) {
        leader.child.kill("SIGCONT");
        leader.child.kill("SIGKILL");
      }
      await stopRunner(standby, "leadership lease e2e");
    }
  }, 120_000);
});
