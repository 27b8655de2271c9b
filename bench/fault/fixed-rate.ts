/**
 * The latency benchmarks' fixed-rate path (`latency`, `cdc-peers`): a started pipeline receives a
 * DNLD, then FLOP updates through its HTTP ingress at `rate` from an open-loop generator in a
 * child process; mailbox commit → Kafka ack per message, split at the enqueue and the pump commit,
 * with the pump's phases, the event loops' load, the pump's runs and the runner's CPU per message
 * during the load.
 *
 * The generator runs in a child process started from the bundle's own file, so a benchmark that
 * calls {@link atFixedRate} starts through {@link benchMain}. A process and not a worker thread:
 * `process.cpuUsage()` counts every thread of the process (Node 20 has no per-thread counter), and
 * the generator's CPU must not count as the runner's.
 */
import { fork } from "node:child_process";
import { setMaxListeners } from "node:events";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { drained, type Inproc } from "./inproc.js";
import { latencyStats, sleep, systemCalls, type LatencyStats } from "./infra.js";
import { openLoop, type LoadResult, type OpenLoopOptions } from "./load.js";

export interface FixedRateResult {
  /** Mailbox commit (inside the ingress, after the INSERT returned) → Kafka ack of the msg-topic record. */
  readonly e2e: LatencyStats;
  readonly stages: {
    /** Mailbox commit → the intake's enqueue into PostgreSQL returned. */
    readonly commitToEnqueued: LatencyStats;
    readonly enqueuedToProcessed: LatencyStats;
    readonly processedToAck: LatencyStats;
  };
  /** Milliseconds per phase of the pump's steps during the load. */
  readonly phases: Record<string, LatencyStats>;
  readonly loop: {
    readonly utilization: number;
    readonly ingressThreadUtilization: number | null;
    readonly delayMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  };
  readonly runs: { readonly count: number; readonly meanSize: number; readonly betweenCommitsMs: LatencyStats };
  readonly load: Omit<LoadResult, "ids">;
  readonly cpu: CpuPerMessage;
}

/**
 * CPU (user + system, from `process.cpuUsage()`) per accepted message while the load ran. The
 * runner's is this process's: the pipeline on the main thread and the ingress thread, plus what the
 * benchmark itself does here meanwhile — the probes around the adapters (a map entry per message
 * and stage) and the event-loop delay monitor (a 1 ms timer). The generator's is its own process's.
 */
export interface CpuPerMessage {
  readonly runnerMs: number;
  readonly runnerUserMs: number;
  readonly runnerSystemMs: number;
  readonly generatorMs: number;
  /**
   * This process's CPU per second while idle, just before the load (the pipeline started and
   * waiting, the delay monitor on, the generator forked and waiting): the fixed cost in `runnerMs`,
   * which at `rate` msg/s adds `idleMsPerSecond / rate` to every message.
   */
  readonly idleMsPerSecond: number;
  /** This process's read and write system calls per accepted message while the load ran (`/proc/self/io`). */
  readonly readCallsPerMessage: number;
  readonly writeCallsPerMessage: number;
  readonly messages: number;
  readonly seconds: number;
}

/** What the load child posts back. */
interface LoadAnswer {
  readonly result: LoadResult;
  readonly cpu: NodeJS.CpuUsage;
}

/** How long the runner's idle CPU is measured before the load starts. */
const IDLE_WINDOW_MS = 3_000;

/** Env variable that makes the bundle, forked, the load generator (see {@link benchMain}). */
const LOAD_CHILD = "MSGX_BENCH_LOAD_CHILD";

/**
 * Forks the load generator and hands it `options`; `run()` starts the load once it is ready, so the
 * fork, the child's start and the copy of the bodies lie outside the measured window.
 */
export async function loadInChild(options: OpenLoopOptions): Promise<{ run: () => Promise<LoadAnswer> }> {
  // No inherited --cpu-prof: a profile of the runner must be the runner's only.
  const child = fork(__filename, [], { env: { ...process.env, [LOAD_CHILD]: "1" }, execArgv: ["--enable-source-maps"], stdio: "inherit" });
  const failed = new Promise<never>((_, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the load generator exited (${code}) before it answered`)));
  });
  const next = () => Promise.race([new Promise<unknown>((resolve) => child.once("message", resolve)), failed]);
  child.send({ options });
  await next();
  return {
    run: async () => {
      child.send({ go: true });
      const answer = (await next()) as LoadAnswer;
      child.removeAllListeners("exit");
      return answer;
    },
  };
}

/**
 * How often the loop-delay monitor samples: prom-client's default. At 1 ms its timer alone cost the
 * measured process ~22 ms of CPU a second (0.2 ms of each message's figure at 100 msg/s).
 */
const LOOP_DELAY_RESOLUTION_MS = 10;

/** A sample of the monitor (nanoseconds between two of its ticks) as the milliseconds the tick came late. */
const lateMs = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS);

/**
 * Posts `stream[0]` (the DNLD) and waits for it, then offers `stream.slice(1)` at `rate` msg/s
 * through `p`'s ingress and waits until every accepted message is acknowledged.
 */
export async function atFixedRate(p: Inproc, stream: readonly string[], rate: number): Promise<FixedRateResult> {
  const dnld = await fetch(new URL("/cminmsgs/send", p.url), { method: "POST", headers: { "content-type": "application/xml" }, body: stream[0]! });
  if (!dnld.ok) throw new Error(`DNLD refused: ${dnld.status}`);
  await drained(p, 1, 60_000, 50);
  await sleep(500);
  p.phases.clear();
  // How busy the runner's main event loop (this thread) was while the load ran, how late it ran
  // callbacks (sampled every LOOP_DELAY_RESOLUTION_MS), and how busy the ingress thread's loop was.
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loopDelay.enable();
  const generator = await loadInChild({ url: p.url, bodies: stream.slice(1), rate, maxInFlight: 256 });
  const idle0 = process.cpuUsage();
  const idleStart = performance.now();
  await sleep(IDLE_WINDOW_MS);
  const idleUsed = process.cpuUsage(idle0);
  const idleMsPerSecond = (idleUsed.user + idleUsed.system) / 1000 / ((performance.now() - idleStart) / 1000);
  const elu0 = performance.eventLoopUtilization();
  const ingress0 = p.ingressLoop();
  const cpu0 = process.cpuUsage();
  const calls0 = systemCalls();
  const answer = await generator.run();
  const cpuUsed = process.cpuUsage(cpu0);
  const calls1 = systemCalls();
  const { ids: _ids, ...load } = answer.result;
  const ingress1 = p.ingressLoop();
  const perMessage = (us: number) => us / 1000 / Math.max(1, load.ok);
  const cpu: CpuPerMessage = {
    runnerMs: perMessage(cpuUsed.user + cpuUsed.system),
    runnerUserMs: perMessage(cpuUsed.user),
    runnerSystemMs: perMessage(cpuUsed.system),
    generatorMs: perMessage(answer.cpu.user + answer.cpu.system),
    idleMsPerSecond,
    readCallsPerMessage: (calls1.reads - calls0.reads) / Math.max(1, load.ok),
    writeCallsPerMessage: (calls1.writes - calls0.writes) / Math.max(1, load.ok),
    messages: load.ok,
    seconds: load.seconds,
  };
  const loop = {
    utilization: performance.eventLoopUtilization(elu0).utilization,
    // The ingress thread's loop (parsing, answers, appends), when the runner serves the ingress on one.
    ingressThreadUtilization:
      ingress0 && ingress1 ? (ingress1.active - ingress0.active) / Math.max(1e-9, ingress1.active + ingress1.idle - ingress0.active - ingress0.idle) : null,
    delayMs: { p50: lateMs(loopDelay.percentile(50)), p90: lateMs(loopDelay.percentile(90)), p99: lateMs(loopDelay.percentile(99)), max: lateMs(loopDelay.max) },
  };
  loopDelay.disable();
  // Only accepted requests reach the mailbox: a failed one must not be waited for.
  if (load.failures.length > 0) console.log(`  ${load.failed} requests failed: ${load.failures.join("; ")}`);
  await drained(p, load.ok + 1, 300_000, 100);
  const latencies: number[] = [];
  const toEnqueue: number[] = [];
  const toCommit: number[] = [];
  const toAck: number[] = [];
  for (const [id, at] of p.appended) {
    const ack = p.acked.get(id);
    const enq = p.enqueued.get(id);
    const com = p.committed.get(id);
    if (ack === undefined || enq === undefined || com === undefined) continue;
    latencies.push(ack - at);
    toEnqueue.push(enq - at);
    toCommit.push(com - enq);
    toAck.push(ack - com);
  }
  // The pump's runs during the load: one commit instant per run (a run's messages share it).
  const loadCommits = [...new Set([...p.appended.keys()].map((id) => p.committed.get(id)).filter((t): t is number => t !== undefined))].sort((a, b) => a - b);
  const commitGaps = loadCommits.slice(1).map((t, i) => t - loadCommits[i]!);
  return {
    e2e: latencyStats(latencies),
    stages: { commitToEnqueued: latencyStats(toEnqueue), enqueuedToProcessed: latencyStats(toCommit), processedToAck: latencyStats(toAck) },
    phases: Object.fromEntries([...p.phases].map(([name, ms]) => [name, latencyStats(ms)])),
    loop,
    runs: { count: loadCommits.length, meanSize: latencies.length / Math.max(1, loadCommits.length), betweenCommitsMs: latencyStats(commitGaps) },
    load,
    cpu,
  };
}

/**
 * A benchmark's entry: `main` (exit 0, or 1 with the error), or the open-loop generator of
 * {@link atFixedRate} when this is its child process.
 */
export function benchMain(main: () => Promise<void>): void {
  if (process.env[LOAD_CHILD] === "1" && process.send) {
    let options: OpenLoopOptions | undefined;
    process.on("message", (m: { options?: OpenLoopOptions; go?: boolean }) => {
      if (m.options) {
        options = m.options;
        process.send!("ready");
        return;
      }
      const cpu0 = process.cpuUsage();
      void openLoop(options!).then((result) => process.send!({ result, cpu: process.cpuUsage(cpu0) } satisfies LoadAnswer, () => process.exit(0)));
    });
  } else {
    // The runner's loops and in-flight calls share one AbortSignal: more than 10 listeners is normal.
    setMaxListeners(64);
    main().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  }
}
