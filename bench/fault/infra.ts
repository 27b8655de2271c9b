/**
 * Shared helpers of the benchmarks (`bench/*.bench.ts`) and the fault battery
 * (`packages/runner/test/fault-battery*.e2e.spec.ts`): service URLs, isolated names, Kafka topic
 * set-up and read-back, MariaDB mailbox rows, latency statistics, tables and JSON reports.
 *
 * No `pg` import here (its types live in the adapters' devDependencies): PostgreSQL work goes
 * through `@msgx/adapters-pg` (kysely) or a caller-supplied client.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import kafkajs from "kafkajs";
import mysql from "mysql2/promise";
import { DEFAULT_MAILBOX_NAMES, quoteMailboxNames, type MailboxNames } from "@msgx/adapters-mysql";

const { Kafka, logLevel } = kafkajs;

export const URLS = {
  pg: process.env["MSGX_BENCH_PG_URL"] ?? process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test",
  mysql: process.env["MSGX_BENCH_MYSQL_URL"] ?? process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test",
  brokers: process.env["MSGX_BENCH_KAFKA_BROKERS"] ?? process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092",
} as const;

/** The repository root: the nearest directory at or above the working directory with the workspace file. */
export const REPO = (() => {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
})();

/** `--name value` from argv, or the fallback. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
export const numArg = (name: string, fallback: number): number => Number(arg(name, String(fallback)));
export const listArg = (name: string, fallback: string): number[] => arg(name, fallback).split(",").filter(Boolean).map(Number);
/** `--name true|false` from argv, or the fallback; any other value is refused. */
export function flagArg(name: string, fallback: boolean): boolean {
  const value = arg(name, String(fallback));
  if (value !== "true" && value !== "false") throw new Error(`--${name} takes true or false, not ${value}`);
  return value === "true";
}

/**
 * `target` with each method in `names` timed: `took(name, ms)` after every call, fulfilled or
 * not. Every other member passes through, methods bound to `target` (its private fields stay
 * reachable).
 */
export function timedMethods<T extends object>(target: T, names: readonly string[], took: (name: string, ms: number) => void): T {
  return new Proxy(target, {
    get(t, prop) {
      const v = Reflect.get(t, prop) as unknown;
      if (typeof v !== "function") return v;
      const f = (v as (...a: unknown[]) => Promise<unknown>).bind(t);
      if (typeof prop !== "string" || !names.includes(prop)) return f;
      return async (...a: unknown[]) => {
        const t0 = performance.now();
        try {
          return await f(...a);
        } finally {
          took(prop, performance.now() - t0);
        }
      };
    },
  });
}

/** One turn of the event loop: the `pause` the runner gives the pump and the relay (`PumpDeps.pause`, `DeliveryDeps.pause`). */
export const eventLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A short unique suffix for schemas, tables and topics of one run. */
export const runTag = (prefix: string): string => `${prefix}_${process.pid}_${Date.now() % 1_000_000}`;

/** A deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Epoch milliseconds with the sub-millisecond part: `Date.now()` has whole milliseconds, which at
 * a few milliseconds from commit to ack moves a percentile by up to one (and the Java peers report
 * microseconds).
 */
export const wallClockMs = (): number => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------- statistics

export interface LatencyStats {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function latencyStats(values: readonly number[]): LatencyStats {
  const s = [...values].sort((a, b) => a - b);
  const sum = s.reduce((a, b) => a + b, 0);
  return { count: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s.at(-1) ?? Number.NaN, mean: s.length ? sum / s.length : Number.NaN };
}

export const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "—");

/** Prints an aligned table (first column left, the others right). */
export function printTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const cells = [headers, ...rows].map((r) => r.map((c) => (typeof c === "number" ? fmt(c) : c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(`  ${line(cells[0]!)}`);
  console.log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const r of cells.slice(1)) console.log(`  ${line(r)}`);
}

// -------------------------------------------------------------------------------------- machine

const quiet = (cmd: string, args: readonly string[]): string => {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10_000 }).trim();
  } catch {
    return "unknown";
  }
};

export interface MachineInfo {
  readonly nproc: number;
  readonly cpu: string;
  readonly memoryGiB: number;
  readonly loadAverage1m: number;
  readonly node: string;
  readonly postgres: string;
  readonly mariadb: string;
  readonly kafka: string;
}

/** What the figures were measured on (versions read from the running services). */
export function machineInfo(): MachineInfo {
  const pgUrl = new URL(URLS.pg);
  const my = new URL(URLS.mysql);
  const kafkaComplete = join(REPO, ".kafka", "lib", ".complete");
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
    node: process.version,
    postgres: quiet("psql", ["-h", pgUrl.hostname, "-p", pgUrl.port || "5432", "-U", decodeURIComponent(pgUrl.username) || "postgres", "-d", pgUrl.pathname.slice(1) || "postgres", "-tAc", "SHOW server_version"]),
    mariadb: quiet("mysql", ["-h", my.hostname, "-P", my.port || "3306", "-u", decodeURIComponent(my.username) || "root", "-N", "-e", "SELECT VERSION()"]),
    kafka: existsSync(kafkaComplete) ? `Apache Kafka ${readFileSync(kafkaComplete, "utf8").trim()} (KRaft, single node, scripts/kafka)` : `unknown (${URLS.brokers})`,
  };
}

/** Writes `bench/results/<name>-<time>.json` and returns its path. */
export function writeReport(name: string, report: Record<string, unknown>): string {
  const dir = join(REPO, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const at = new Date().toISOString();
  const file = join(dir, `${name}-${at.replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ bench: name, at, ...report }, null, 2)}\n`);
  return file;
}

// ---------------------------------------------------------------------------------------- Kafka

/** A client of `brokers` (a comma-separated bootstrap list; the shared single node by default). */
export function kafkaClient(clientId: string, brokers: string = URLS.brokers): InstanceType<typeof Kafka> {
  return new Kafka({ clientId, brokers: brokers.split(","), logLevel: logLevel.NOTHING, connectionTimeout: 3_000 });
}

/** Creates topics (delete policy) and waits for their leaders. */
export async function createTopics(topics: readonly string[], partitions: number): Promise<void> {
  const admin = kafkaClient("msgx-bench-admin").admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })), waitForLeaders: true, timeout: 30_000 });
  } finally {
    await admin.disconnect();
  }
}

/** Deletes topics; failures are ignored (clean-up only). */
export async function deleteTopics(topics: readonly string[], brokers: string = URLS.brokers): Promise<void> {
  const admin = kafkaClient("msgx-bench-admin", brokers).admin();
  try {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    const mine = topics.filter((t) => existing.has(t));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine, timeout: 30_000 });
  } catch {
    // clean-up only
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Reads every record of `topics` from the beginning up to the high watermarks at the time of the
 * call, in partition order (a key's records are in the order the broker appended them).
 */
export async function readTopics(topics: readonly string[], timeoutMs = 90_000, brokers: string = URLS.brokers): Promise<ConsumedRecord[]> {
  const kafka = kafkaClient("msgx-bench-reader", brokers);
  const admin = kafka.admin();
  await admin.connect();
  const want = new Map<string, number>();
  try {
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) if (Number(p.high) > 0) want.set(`${topic}/${p.partition}`, Number(p.high));
    }
  } finally {
    await admin.disconnect();
  }
  const out: ConsumedRecord[] = [];
  if (want.size === 0) return out;
  const consumer = kafka.consumer({ groupId: `msgx-bench-reader-${process.pid}-${Date.now()}`, maxBytesPerPartition: 4 * 1024 * 1024 });
  const reached = new Map<string, number>();
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const check = () => {
    if ([...want].every(([k, h]) => (reached.get(k) ?? 0) >= h)) done();
  };
  // A transactional producer (the runner's fenced one) ends each send with a commit marker: the
  // partition's last offset is a control record no message carries. kafkajs reports every batch,
  // a markers-only one included, with its last offset (markers counted) when it has processed it.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const id = `${payload.topic}/${payload.partition}`;
    reached.set(id, Math.max(reached.get(id) ?? 0, Number(payload.lastOffset) + 1));
    check();
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const id = `${batch.topic}/${batch.partition}`;
        const high = want.get(id) ?? 0;
        for (const m of batch.messages) {
          const offset = Number(m.offset);
          if (offset >= high) continue;
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(m.headers ?? {})) if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
          out.push({ topic: batch.topic, partition: batch.partition, offset, key: m.key?.toString() ?? null, value: m.value?.toString() ?? null, headers });
          reached.set(id, offset + 1);
        }
        check();
      },
    });
    const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`readTopics: timed out after ${timeoutMs} ms (${out.length} records read)`)), timeoutMs).unref());
    await Promise.race([finished, timer]);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  return out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition || a.offset - b.offset : a.topic < b.topic ? -1 : 1));
}

// ---------------------------------------------------------------------------------------- MariaDB

export type MysqlPool = ReturnType<typeof mysql.createPool>;

export function mysqlPool(connectionLimit = 4, uri: string = URLS.mysql): MysqlPool {
  return mysql.createPool({ uri, connectionLimit, supportBigNumbers: true, dateStrings: true, connectTimeout: 5_000 });
}

/** The upstream's mailbox tables (its DDL, `cminmsgs`/`coutmsgs`) under names only this run uses. */
export function runMailboxNames(tag: string): MailboxNames {
  const d = DEFAULT_MAILBOX_NAMES;
  return { inbound: { ...d.inbound, table: `cminmsgs_${tag}` }, outbound: { ...d.outbound, table: `coutmsgs_${tag}` } };
}

/**
 * Inserts mailbox rows in order as the upstream does (`DATE_RECEIVED` now, `STATUS` 'VALID'),
 * `chunk` rows per multi-row INSERT (one autocommit each), and returns the ids and the instant
 * each chunk committed. With `ids` the rows get those explicit ids (the fault battery: a retried
 * insert is then idempotent).
 */
export async function insertMailboxRows(
  pool: MysqlPool,
  names: MailboxNames,
  raws: readonly string[],
  options: { chunk?: number; ids?: readonly number[] } = {},
): Promise<{ ids: number[]; committedAt: number[] }> {
  const { table, columns: c } = quoteMailboxNames(names).inbound;
  const into = `INSERT INTO ${table} (${options.ids ? `${c.id}, ` : ""}${c.clobMsg}, ${c.dateReceived}, ${c.status}) VALUES `;
  const row = `(${options.ids ? "?, " : ""}?, UTC_TIMESTAMP(), 'VALID')`;
  const chunk = options.chunk ?? 500;
  const ids: number[] = [];
  const committedAt: number[] = [];
  for (let i = 0; i < raws.length; i += chunk) {
    const part = raws.slice(i, i + chunk);
    if (options.ids) {
      const partIds = options.ids.slice(i, i + chunk);
      await pool.query(into + part.map(() => row).join(","), part.flatMap((raw, j) => [partIds[j], raw]));
      ids.push(...partIds);
    } else {
      const [result] = await pool.query(into + part.map(() => row).join(","), part);
      const first = Number((result as { insertId: number }).insertId);
      ids.push(...part.map((_, j) => first + j));
    }
    const at = Date.now();
    committedAt.push(...part.map(() => at));
  }
  return { ids, committedAt };
}

/** This process's read and write system calls so far (`/proc/self/io`; zeros where there is none). */
export function systemCalls(): { readonly reads: number; readonly writes: number } {
  try {
    const io = readFileSync("/proc/self/io", "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? 0);
    return { reads: field("syscr"), writes: field("syscw") };
  } catch {
    return { reads: 0, writes: 0 };
  }
}
