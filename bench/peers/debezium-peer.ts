/**
 * Debezium's embedded engine as a child process (bench/peers/debezium: `DebeziumPeer`, built with
 * Maven when its classes are missing or older than its sources). The child prints
 * `ack <id> <handedEpochMicros> <ackEpochMicros>` per record the broker acknowledged; this side
 * keeps the instants by id, in epoch milliseconds (fractional).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO, sleep } from "../fault/infra.js";

const PROJECT = join(REPO, "bench", "peers", "debezium");
const CLASSPATH_FILE = join(PROJECT, "target", "classpath.txt");

export interface DebeziumAck {
  /** When the engine handed the record to the producer. */
  readonly handedAt: number;
  /** When the broker acknowledged it. */
  readonly ackedAt: number;
}

export interface DebeziumPeer {
  readonly pid: number;
  /** Record id → its instants, for every acknowledged record. */
  readonly acks: Map<number, DebeziumAck>;
  /** Resolves once `id` is acknowledged (rejects when the engine stops or `timeoutMs` passes). */
  acked(id: number, timeoutMs: number): Promise<DebeziumAck>;
  /** The child's CPU time (user + system) so far, in milliseconds, from /proc. */
  cpuMs(): number;
  stop(): Promise<void>;
}

function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return t;
}

/** Written after a build (Maven leaves an unchanged classpath.txt as it was). */
const BUILT_STAMP = join(PROJECT, "target", "built.stamp");

/** `mvn package` unless the last build is newer than pom.xml and src/. */
export function buildDebeziumPeer(): void {
  const built = existsSync(BUILT_STAMP) ? statSync(BUILT_STAMP).mtimeMs : 0;
  if (built > Math.max(statSync(join(PROJECT, "pom.xml")).mtimeMs, newest(join(PROJECT, "src")))) return;
  console.log("  building bench/peers/debezium with Maven (first run downloads Debezium from Maven Central)");
  execFileSync("mvn", ["-B", "-q", "package"], { cwd: PROJECT, stdio: ["ignore", "inherit", "inherit"] });
  writeFileSync(BUILT_STAMP, `${new Date().toISOString()}\n`);
}

/** Children still running when the process exits (a failed or interrupted benchmark) are killed. */
const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Linux's clock ticks per second for /proc/<pid>/stat. */
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/**
 * Starts `DebeziumPeer` with `args` (key=value, see the class) and resolves once its engine's task
 * runs. Debezium's log (stderr) is kept to its last 40 lines, printed when the engine fails.
 */
export async function startDebeziumPeer(args: Readonly<Record<string, string | number>>): Promise<DebeziumPeer> {
  buildDebeziumPeer();
  const classpath = `${join(PROJECT, "target", "classes")}:${readFileSync(CLASSPATH_FILE, "utf8").trim()}`;
  const child: ChildProcess = spawn("java", ["-cp", classpath, "io.msgx.bench.DebeziumPeer", ...Object.entries(args).map(([k, v]) => `${k}=${v}`)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const acks = new Map<number, DebeziumAck>();
  const waiters = new Map<number, (a: DebeziumAck) => void>();
  let stopped: string | undefined;
  let started!: () => void;
  let failed!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  const stderrTail: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 40) stderrTail.shift();
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const [kind, id, handed, acked] = line.split(" ");
    if (kind === "ack") {
      const a = { handedAt: Number(handed) / 1000, ackedAt: Number(acked) / 1000 };
      acks.set(Number(id), a);
      waiters.get(Number(id))?.(a);
      waiters.delete(Number(id));
    } else if (kind === "started") started();
    else if (kind === "stopped") stopped = line;
  });
  child.once("exit", (code, signal) => {
    children.delete(child);
    stopped ??= `exited (${code ?? signal})`;
    failed(new Error(`Debezium ${stopped}; its last log lines:\n${stderrTail.join("\n")}`));
  });
  await Promise.race([ready, sleep(120_000).then(() => Promise.reject(new Error("Debezium's task did not start within 120 s")))]).catch((e: unknown) => {
    child.kill("SIGKILL");
    throw e;
  });
  return {
    pid: child.pid!,
    acks,
    acked: async (id, timeoutMs) => {
      const known = acks.get(id);
      if (known) return known;
      return Promise.race([
        new Promise<DebeziumAck>((resolve) => waiters.set(id, resolve)),
        sleep(timeoutMs).then(() => Promise.reject(new Error(`record ${id} not acknowledged within ${timeoutMs} ms${stopped ? ` (${stopped})` : ""}`))),
      ]);
    },
    cpuMs: () => {
      // Fields 14 and 15 (utime, stime) after the parenthesised command name.
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1000;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([gone, sleep(30_000).then(() => child.kill("SIGKILL"))]);
    },
  };
}
