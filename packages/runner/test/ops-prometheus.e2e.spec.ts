/**
 * The shipped alert rules on a real Prometheus (Debian's 2.42, issue 37) scraping the built
 * `msgx run` — embedded state and mailbox, events delivered to the real Kafka broker: with the
 * broker stopped, an event waits and `MsgxDeliveryLagging` fires; with it started again, the event
 * goes and the alert resolves; a malformed message posted goes DEAD and `MsgxDeadLetter` fires. On
 * the way every rule evaluates without error and every dashboard query is one Prometheus accepts.
 *
 * The rules are the shipped file with one change, so the suite ends in about a minute: the
 * delivery-lag alert's `for:` is 5 s instead of 1 m (its threshold, 30 s of lag, is as shipped, so
 * the broker stays down for about 40 s). Prometheus scrapes and evaluates every second, on a port
 * taken by binding a free one first (it cannot listen on port 0), with a temporary configuration
 * and data directory; its state is read from its HTTP API (`/api/v1/alerts`, `/api/v1/rules`),
 * polled, never waited for by the clock.
 *
 * It stops the shared broker, so it runs in the exclusive project (vitest.config.ts) and needs this
 * checkout's scripts/kafka broker (the fault battery's service control): NOT RUN otherwise, and
 * NOT RUN without /usr/bin/prometheus; both failures under MSGX_REQUIRE_SERVICES=1. The broker is
 * started again whatever happens.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { gateService } from "@msgx/core/testing";
import { gateControl, startService, stopService } from "../../../bench/fault/services.js";
import { alertRules, concreteQuery, dashboardQueries, gateBinary, PROMETHEUS, RULES_FILE } from "./ops-files.js";
import { dropKafkaRun, eventually, FIXTURES, post, probeKafka, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { killOnExit } from "./script-process.js";
import { freePort } from "./free-port.js";

const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const suite = "ops: the alert rules on a real Prometheus, through a broker outage";
const run = `opsprom_${process.pid}_${Date.now() % 100_000}`;
const SHORTENED_FOR = { MsgxDeliveryLagging: "5s" } as const;

const gates = [
  await gateBinary(PROMETHEUS, "prometheus", suite),
  await gateService("Kafka", suite, () => probeKafka([BROKERS])),
  await gateControl(["kafka"], suite),
];
const available = gates.every((g) => g.available);

const scratch = mkdtempSync(join(tmpdir(), "msgx-ops-prom-"));
let runner: RunnerProcess | undefined;
let stopPrometheus: (() => Promise<void>) | undefined;
afterAll(async () => {
  await stopPrometheus?.();
  await stopRunner(runner, suite);
  if (available) await dropKafkaRun(BROKERS, run).catch(() => undefined);
  rmSync(scratch, { recursive: true, force: true });
});

/** The shipped rules with the `for:` of {@link SHORTENED_FOR} replaced, everything else as it is. */
function renderedRules(): string {
  const doc = parseDocument(readFileSync(RULES_FILE, "utf8"));
  const groups = doc.get("groups") as { items: { get(k: string): { items: { get(k: string): unknown; set(k: string, v: string): void }[] } }[] };
  let changed = 0;
  for (const group of groups.items) {
    for (const rule of group.get("rules").items) {
      const shorter = SHORTENED_FOR[rule.get("alert") as keyof typeof SHORTENED_FOR];
      if (shorter !== undefined) (rule.set("for", shorter), changed++);
    }
  }
  expect(changed).toBe(Object.keys(SHORTENED_FOR).length);
  return doc.toString();
}

interface PromAlert {
  readonly labels: Record<string, string>;
  readonly state: "pending" | "firing";
}

async function startPrometheus(target: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const rules = join(scratch, "msgx.rules.yml");
  writeFileSync(rules, renderedRules());
  const config = join(scratch, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 1s }",
      `rule_files: ["${rules}"]`,
      `scrape_configs: [{ job_name: msgx, static_configs: [{ targets: ["${target}"] }] }]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(scratch, "tsdb")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"], { stdio: ["ignore", "pipe", "pipe"] });
  killOnExit(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined), 60_000, `prometheus ready on ${url}`).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${out}`);
  });
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

describe.skipIf(!available)(suite, () => {
  it("the broker stopped: MsgxDeliveryLagging fires, and resolves when it is back; a malformed message: MsgxDeadLetter fires", async () => {
    runner = await spawnRunner(["--data-dir", join(scratch, "data"), "--kafka", BROKERS], {
      MSGX_KAFKA_MSG_TOPIC: `msg_${run}`,
      MSGX_KAFKA_SCHD_TOPIC: `schd_${run}`,
      MSGX_KAFKA_REF_TOPIC: `ref_${run}`,
      MSGX_SCHD_FLUSH_PERIOD_MS: "300",
    });
    const prometheus = await startPrometheus(new URL(runner.url).host);
    stopPrometheus = prometheus.stop;
    const api = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${prometheus.url}${path}`);
      const body = (await res.json()) as { status: string; data: T; error?: string };
      if (body.status !== "success") throw new Error(`${path}: ${body.error}`);
      return body.data;
    };
    const alerts = async () => (await api<{ alerts: PromAlert[] }>("/api/v1/alerts")).alerts;
    const firing = async (name: string) => (await alerts()).find((a) => a.labels["alertname"] === name && a.state === "firing");
    const t0 = Date.now();
    const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

    await eventually(async () => ((await api<{ result: unknown[] }>(`/api/v1/query?query=${encodeURIComponent('up{job="msgx"} == 1')}`)).result.length === 1 ? true : undefined), 60_000, "the runner scraped");
    expect((await post(runner.url, readFileSync(join(FIXTURES, "01-schd-dnld-3-flights.xml"), "utf8"))).status).toBe(200);
    await eventually(async () => {
      const s = (await (await fetch(new URL("/admin/status", runner!.url))).json()) as { byStatus: { SUCCEEDED: number }; delivery: Record<string, { pending: number }> };
      return s.byStatus.SUCCEEDED === 1 && Object.values(s.delivery).every((d) => d.pending === 0) ? true : undefined;
    }, 60_000, "the first message applied and its events delivered");

    // Every rule evaluates on real series, and every dashboard query parses and runs.
    const rules = await eventually(async () => {
      const groups = (await api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>("/api/v1/rules")).groups;
      const all = groups.flatMap((g) => g.rules);
      return all.length === alertRules().length && all.every((r) => r.health !== "unknown") ? all : undefined;
    }, 30_000, "every rule evaluated once");
    expect(rules.filter((r) => r.health !== "ok").map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    for (const q of dashboardQueries()) await api(`/api/v1/query?query=${encodeURIComponent(concreteQuery(q.expr, "msgx"))}`).catch((e: unknown) => expect.fail(`${q.where}: ${String(e)}`));
    expect(await firing("MsgxDeliveryLagging")).toBeUndefined();
    expect(await firing("MsgxNoLeader")).toBeUndefined();

    let fired: PromAlert;
    try {
      await stopService("kafka");
      console.info(`[${suite}] broker stopped at ${at()}`);
      expect((await post(runner.url, readFileSync(join(FIXTURES, "03-flop-gtdt-gate-change.xml"), "utf8"))).status).toBe(200);
      fired = await eventually(() => firing("MsgxDeliveryLagging"), 150_000, "MsgxDeliveryLagging firing");
      console.info(`[${suite}] MsgxDeliveryLagging firing at ${at()} for target ${fired.labels["target"]}`);
    } finally {
      await startService("kafka");
      console.info(`[${suite}] broker started at ${at()}`);
    }
    expect(fired.labels).toMatchObject({ severity: "critical", job: "msgx" });
    expect(fired.labels["target"]).toMatch(/\S/);

    await eventually(async () => ((await alerts()).some((a) => a.labels["alertname"] === "MsgxDeliveryLagging") ? undefined : true), 180_000, "MsgxDeliveryLagging resolved");
    console.info(`[${suite}] MsgxDeliveryLagging resolved at ${at()}`);
    expect(await firing("MsgxDeadLetter")).toBeUndefined();

    expect((await post(runner.url, "<MSG><META><SNDR>AODB</SNDR>this is not closed")).status).toBe(200);
    const dead = await eventually(() => firing("MsgxDeadLetter"), 60_000, "MsgxDeadLetter firing");
    console.info(`[${suite}] MsgxDeadLetter firing at ${at()}`);
    expect(dead.labels).toMatchObject({ severity: "warning", job: "msgx" });
  }, 420_000);
});
