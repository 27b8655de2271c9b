import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import kafkajs from "kafkajs";
import type pg from "pg";
import { gateService } from "@msgx/core/testing";
import { killOnExit } from "./script-process.js";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../../core/test/fixtures/sis/", import.meta.url));

/** A `msgx run` child process and the URL it listens on. */
export interface RunnerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  /** What the process wrote to stdout alone (JSON log lines only). */
  readonly stdout: () => string;
  /** Resolves with the exit code (or the signal name) once the process is gone. */
  readonly exited: Promise<number | string>;
}

/**
 * Spawns the built binary and waits until it prints where it listens: by default once the
 * pipeline runs (`msgx listening on`); `PROBES` waits only for the HTTP server (any role).
 *
 * The runner keeps every flight (`history.retentionDays` 36500) unless `env` says otherwise: the
 * fixtures' flights are from 2026-03-05, and the daily history sweep (03:30 airport time, 19:30
 * UTC) would retire them from under a test that happens to run across it.
 */
export async function spawnRunner(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 100_000, ready: RegExp = RUNNING): Promise<RunnerProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (pnpm test builds)`);
  const child = spawn(process.execPath, [CLI, "run", "--http-port", "0", ...args], {
    env: { ...process.env, MSGX_LOG_LEVEL: "warn", MSGX_HISTORY_RETENTION_DAYS: "36500", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  let out = "";
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => ((out += d.toString()), (stdout += d.toString())));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`runner did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`runner exited (${code}) before listening:\n${out}`));
    });
  });
  return { url, child, output: () => out, stdout: () => stdout, exited };
}

/** The environment that gives a runner on shared PostgreSQL and Kafka its own schema and pipeline topics, tagged `run`. */
export const runTagged = (run: string): NodeJS.ProcessEnv => ({
  MSGX_PG_SCHEMA: run,
  MSGX_KAFKA_MSG_TOPIC: `msg_${run}`,
  MSGX_KAFKA_SCHD_TOPIC: `schd_${run}`,
  MSGX_KAFKA_REF_TOPIC: `ref_${run}`,
});

/** The line of a runner whose pipeline runs. */
export const RUNNING = /msgx listening on (http:\/\/[^\s]+)/;
/** The line of a runner whose HTTP server listens, before any dependency is open. */
export const PROBES = /msgx probes on (http:\/\/[^\s]+)/;

export async function post(url: string, xml: string): Promise<Response> {
  return fetch(new URL("/cminmsgs/send", url), { method: "POST", headers: { "content-type": "application/xml" }, body: xml });
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves when a Kafka cluster answers at `brokers` within 3 s (a service gate's probe); rejects otherwise. */
export async function probeKafka(brokers: readonly string[]): Promise<void> {
  const admin = new kafkajs.Kafka({ brokers: [...brokers], connectionTimeout: 3_000, retry: { retries: 0 }, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.describeCluster();
  } finally {
    await admin.disconnect();
  }
}

/** Gates a suite on PostgreSQL (by connecting `pgClient`, which the suite goes on using) and Kafka: true when both answer. */
export async function gatePgAndKafka(suite: string, pgClient: pg.Client, brokers: string): Promise<boolean> {
  const gates = [
    await gateService("PostgreSQL", suite, async () => void (await pgClient.connect())),
    await gateService("Kafka", suite, () => probeKafka(brokers.split(","))),
  ];
  return gates.every((g) => g.available);
}

/** Stops a spawned runner with SIGTERM; prints its output when it did not exit 0. */
export async function stopRunner(runner: RunnerProcess | undefined, suite: string): Promise<void> {
  if (!runner) return;
  runner.child.kill("SIGTERM");
  const code = await runner.exited;
  if (code !== 0) console.error(`[${suite}] runner exited ${code}:\n${runner.output().slice(-5_000)}`);
}

/** A suite's teardown on shared PostgreSQL and Kafka: drops its schema, topics and groups (all named after `run`, when the gate let it create them) and ends its client. */
export async function dropPgAndKafkaRun(pgClient: pg.Client, brokers: string, run: string, suite: string, created: boolean): Promise<void> {
  if (created) {
    await pgClient.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
    await dropKafkaRun(brokers, run).catch((e: unknown) => console.warn(`[${suite}] topics or groups of ${run} left behind:`, e));
  }
  await pgClient.end().catch(() => undefined);
}

/** Deletes a run's topics and consumer groups (every name holding `run`), so a shared broker does not fill up. */
export async function dropKafkaRun(brokers: string, run: string): Promise<void> {
  const admin = new kafkajs.Kafka({ brokers: brokers.split(","), logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.includes(run));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.includes(run));
    if (groups.length > 0) await admin.deleteGroups(groups);
  } finally {
    await admin.disconnect();
  }
}

/** Runs the built `msgx` CLI; its exit code and output. */
export function runCli(args: readonly string[]): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("exit", (code, signal) => resolve({ code: code ?? signal ?? -1, output }));
  });
}
