/**
 * The built `msgx run` binary as a child process on real PostgreSQL, MariaDB and Kafka, isolated
 * by schema, mailbox tables and topics (a `RealRun`), plus the clean-up of all of them. Used by the
 * ingress benchmark and the fault battery.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createMailboxTables, dropMailboxTables, type MailboxNames } from "@msgx/adapters-mysql";
import { deleteTopics, mysqlPool, REPO, runMailboxNames, URLS, type MysqlPool } from "./infra.js";

export const CLI = join(REPO, "packages", "runner", "dist", "cli.js");

/** Names of one isolated run. */
export interface RealRun {
  readonly tag: string;
  readonly schema: string;
  /** The upstream's layout (`runMailboxNames`) under this run's table names. */
  readonly names: MailboxNames;
  readonly msgTopic: string;
  readonly schdTopic: string;
}

export function realRun(tag: string): RealRun {
  return { tag, schema: tag.toLowerCase(), names: runMailboxNames(tag), msgTopic: `msg_${tag}`, schdTopic: `schd_${tag}` };
}

/**
 * The environment that points a runner at `run`'s schema, tables and topics. The history sweep
 * keeps every flight: the corpora's operation days are long past, so a runner alive at
 * `history.sweepAt` (03:30 airport time, 19:30 UTC) would retire their flights mid-run and skip
 * the messages after, which the batteries' models have no sweep for — a result that would depend
 * on the time of day the suite runs.
 */
export function runEnv(run: RealRun, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    MSGX_HISTORY_RETENTION_DAYS: "36500",
    MSGX_PG_SCHEMA: run.schema,
    MSGX_MYSQL_INBOUND_TABLE: run.names.inbound.table,
    MSGX_MYSQL_OUTBOUND_TABLE: run.names.outbound.table,
    MSGX_KAFKA_MSG_TOPIC: run.msgTopic,
    MSGX_KAFKA_SCHD_TOPIC: run.schdTopic,
    ...extra,
  };
}

export async function createMailbox(pool: MysqlPool, run: RealRun): Promise<void> {
  await createMailboxTables(pool as never, run.names);
}

/** Drops the mailbox tables and the topics (the schema is dropped by the caller's PostgreSQL handle). */
export async function dropRun(run: RealRun, pool?: MysqlPool, brokers: string = URLS.brokers): Promise<void> {
  const own = pool ?? mysqlPool(1);
  await dropMailboxTables(own as never, run.names).catch(() => undefined);
  if (!pool) await own.end().catch(() => undefined);
  await deleteTopics([run.msgTopic, run.schdTopic], brokers);
}

/** This process's environment without MSGX_* settings (the runner refuses unknown ones; tests set their own). */
function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MSGX_") || k.startsWith("MSGX_TEST_") || k === "MSGX_REQUIRE_SERVICES"));
}

export interface RunnerChild {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  /** The exit code, or the signal name. */
  readonly exited: Promise<number | string>;
}

/** Where a runner's services are (each defaults to `URLS`, the shared single servers), and a hook. */
export interface RealRunnerOptions {
  readonly pg?: string;
  readonly mysql?: string;
  /** A comma-separated bootstrap list. */
  readonly brokers?: string;
  /**
   * Called with the process as soon as it is spawned: a standby prints `msgx listening` only once
   * it leads, so a supervisor that must be able to stop it while it waits needs it before then.
   */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** Spawns `msgx run` on the real services and waits until it listens (rejects if it exits first). */
export async function spawnRealRunner(run: RealRun, extraEnv: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, urls: RealRunnerOptions = {}): Promise<RunnerChild> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx -y pnpm@10.34.9 build)`);
  // Node flags for the runner only, e.g. MSGX_TEST_RUNNER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"
  // (Node refuses --cpu-prof in NODE_OPTIONS).
  const nodeArgs = (process.env["MSGX_TEST_RUNNER_NODE_ARGS"] ?? "").split(/\s+/).filter((a) => a !== "");
  const child = spawn(process.execPath, [...nodeArgs, CLI, "run", "--http-port", "0", "--pg", urls.pg ?? URLS.pg, "--mysql", urls.mysql ?? URLS.mysql, "--kafka", urls.brokers ?? URLS.brokers], {
    env: { ...inheritedEnv(), MSGX_LOG_LEVEL: "warn", ...runEnv(run, extraEnv) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  urls.onSpawn?.(child);
  let out = "";
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`runner did not start in ${timeoutMs} ms:\n${out.slice(-4_000)}`));
    }, timeoutMs);
    const check = () => {
      const m = /msgx listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`runner exited (${code}) before listening:\n${out.slice(-4_000)}`));
    });
  });
  return { url, child, output: () => out, exited };
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopRunner(r: RunnerChild, graceMs = 30_000): Promise<number | string> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return r.exited;
  r.child.kill("SIGTERM");
  const timer = setTimeout(() => r.child.kill("SIGKILL"), graceMs);
  const code = await r.exited;
  clearTimeout(timer);
  return code;
}

export interface AdminStatus {
  readonly head: unknown;
  readonly backfillDebt: number;
  readonly byStatus: Record<string, number>;
  readonly deadLetters: number;
  readonly delivery: Record<string, { pending: number; dead: number }>;
}

export async function adminStatus(url: string): Promise<AdminStatus> {
  const res = await fetch(new URL("/admin/status", url), { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`/admin/status answered ${res.status}`);
  return (await res.json()) as AdminStatus;
}

/** Polls until `total` messages are terminal, nothing is pending delivery and (optionally) no backfill debt. */
export async function waitQuiet(url: string, total: number, timeoutMs: number, options: { debt?: boolean } = {}): Promise<AdminStatus> {
  const deadline = Date.now() + timeoutMs;
  let last: AdminStatus | undefined;
  for (;;) {
    try {
      last = await adminStatus(url);
      const terminal = (last.byStatus["SUCCEEDED"] ?? 0) + (last.byStatus["SKIPPED"] ?? 0) + (last.byStatus["DEAD"] ?? 0);
      const pending = Object.values(last.delivery).reduce((a, d) => a + d.pending, 0);
      if (terminal >= total && last.head === null && pending === 0 && (!options.debt || last.backfillDebt === 0)) return last;
    } catch {
      // the runner may be busy or restarting
    }
    if (Date.now() > deadline) throw new Error(`not quiet after ${timeoutMs} ms: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Spawns `msgx run <args>` (the built CLI) with `env` over the process's own, and waits until it
 * listens; `stop` sends SIGTERM and waits for the exit. For benchmarks that give the runner a
 * config file of their own (the reliable-message ones).
 */
export async function spawnCliRunner(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ readonly url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, "run", "--http-port", "0", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d.toString();
      const m = /msgx listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on("data", look);
    child.stderr.on("data", look);
    child.on("exit", (code) => reject(new Error(`runner exited ${code}:\n${out}`)));
  });
  return { url, stop: () => new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGTERM"))) };
}
