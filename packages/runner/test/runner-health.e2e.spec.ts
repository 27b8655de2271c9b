import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CLI, eventually, post, PROBES, spawnRunner, type RunnerProcess } from "./runner-process.js";
import { pgRunnerWorld } from "./pg-runner-world.js";
import { freePort } from "./free-port.js";

const { url: PG_URL, run, client: pgClient, gate: pgGate, dataDir } = await pgRunnerWorld("health", "runner health e2e (standby)");

async function readyz(r: RunnerProcess): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL("/readyz", r.url));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const metricsText = async (r: RunnerProcess) => (await fetch(new URL("/metrics", r.url))).text();

/** SIGTERM, and the exit code with how long the stop took. */
async function terminate(r: RunnerProcess): Promise<{ code: number | string; ms: number }> {
  const t0 = Date.now();
  r.child.kill("SIGTERM");
  const code = await r.exited;
  return { code, ms: Date.now() - t0 };
}

describe("msgx exit codes (the built binary)", () => {
  it("--help lists them; a usage error exits 2, --help 0", () => {
    const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:\n  0  clean stop[^\n]*\n  1  failure[^\n]*\n  2  configuration or usage error[^\n]*\n  3  pipeline leadership lost/);
    const usage = spawnSync(process.execPath, [CLI, "run", "--no-such-option"], { encoding: "utf8" });
    expect([usage.status, usage.stderr]).toEqual([2, expect.stringContaining("unknown option '--no-such-option'")]);
  });
});

describe("msgx run serves HTTP before its dependencies are up (the built binary)", () => {
  it("a running embedded runner reports running, msgx_leader 1, runtime and HTTP metrics by route pattern", async () => {
    const r = await spawnRunner(["--data-dir", dataDir()]);
    try {
      expect(await readyz(r)).toMatchObject({ status: 200, body: { ready: true, role: "running" } });
      await fetch(new URL("/admin/messages/12345", r.url));
      const text = await metricsText(r);
      expect(text).toMatch(/^msgx_leader 1$/m);
      expect(text).toMatch(/^process_cpu_seconds_total /m);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
      expect(text).toMatch(/^msgx_http_requests_total\{method="GET",route="\/readyz",status="200"\} 1$/m);
      // The route pattern, never the raw URL: label values stay bounded.
      expect(text).toContain('route="/admin/messages/:msgId"');
      expect(text).not.toContain("12345");
      expect(text).toMatch(/^msgx_backlog/m);
    } finally {
      expect((await terminate(r)).code).toBe(0);
    }
  });

  it("with Kafka on a closed port it runs the pipeline, /readyz 503 naming kafka and its error; the ingress takes messages; SIGTERM exits 0", async () => {
    const port = await freePort();
    const r = await spawnRunner(["--data-dir", dataDir(), "--kafka", `127.0.0.1:${port}`], { MSGX_LOG_LEVEL: "error" }, undefined, PROBES);
    expect((await fetch(new URL("/healthz", r.url))).status).toBe(200);
    // The broker is not needed to start (docs/reliable-message.md "The outbox while the broker is away"):
    // the runner leads, the intake and the pump write PostgreSQL, sends wait in the outbox.
    const failed = await eventually(async () => {
      const { status, body } = await readyz(r);
      expect(status).toBe(503);
      const checks = (body["checks"] ?? []) as { name: string; ok: boolean; error?: string }[];
      return checks.find((c) => c.name === "kafka" && !c.ok);
    }, 60_000, "/readyz with kafka's error");
    expect(failed).toMatchObject({ name: "kafka", ok: false, error: expect.stringContaining("ECONNREFUSED") });
    expect(await metricsText(r)).toMatch(/^msgx_leader 1$/m);
    expect((await post(r.url, "<x/>")).status).toBe(200);
    expect(r.child.exitCode).toBeNull();
    const { code, ms } = await terminate(r);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(r.output()).toContain("kafka: unreachable at start");
  }, 120_000);

  it("with PostgreSQL on a closed port it stays up, /readyz 503 naming state; SIGTERM exits 0", async () => {
    const port = await freePort();
    const r = await spawnRunner(["--pg", `postgres://postgres@127.0.0.1:${port}/test`, "--data-dir", dataDir()], { MSGX_LOG_LEVEL: "error" }, 30_000, PROBES);
    const failed = await eventually(async () => {
      const { body } = await readyz(r);
      return body["error"] !== undefined ? body : undefined;
    }, 30_000, "/readyz with the state's error");
    expect(failed).toMatchObject({ ready: false, role: "starting", dependency: "state" });
    expect((await fetch(new URL("/healthz", r.url))).status).toBe(200);
    expect((await terminate(r)).code).toBe(0);
  }, 60_000);
});

describe.skipIf(!pgGate.available)("a standby on PostgreSQL (the built binary)", () => {
  it("answers /healthz 200, /readyz 503 standby, msgx_leader 0 while another runner leads; SIGTERM exits 0 in both roles", async () => {
    await pgClient.query(`CREATE SCHEMA ${run}`);
    const env = { MSGX_PG_SCHEMA: run };
    const leader = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir()], env);
    let standby: RunnerProcess | undefined;
    try {
      standby = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir()], env, 30_000, PROBES);
      const s = standby;
      await eventually(async () => ((await readyz(s)).body["role"] === "standby" ? true : undefined), 30_000, "standby role");
      expect((await fetch(new URL("/healthz", s.url))).status).toBe(200);
      expect(await readyz(s)).toEqual({ status: 503, body: { ready: false, role: "standby" } });
      expect(await metricsText(s)).toMatch(/^msgx_leader 0$/m);
      expect((await fetch(new URL("/admin/status", s.url))).status).toBe(503);
      expect(await metricsText(leader)).toMatch(/^msgx_leader 1$/m);
      const { code, ms } = await terminate(s);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(5_000);
      expect(s.stdout()).not.toContain("stopping while a dependency");
    } finally {
      if (standby && standby.child.exitCode === null) standby.child.kill("SIGKILL");
      expect((await terminate(leader)).code).toBe(0);
    }
  }, 120_000);
});
