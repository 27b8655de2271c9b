/**
 * Latency at half the maximum sustained rate (targets: p50 ≤ 15 ms and p99 < 34 ms, under the best
 * published commit → Kafka p99 of a tool that does no processing, 33.9 ms; SPEC §5 asks p50 ≤ 25 ms,
 * p99 ≤ 250 ms), from
 * the mailbox commit of a message to the Kafka acknowledgement of its msg-topic record.
 *
 * 1. The maximum sustained rate: the runner's pipeline in this process (maxRun 200, the runner's
 *    default) drains `--saturate` messages inserted into the MariaDB mailbox as fast as it takes them.
 * 2. A fresh pipeline receives FLOP updates through its own HTTP ingress (`POST /cminmsgs/send`,
 *    which appends to the mailbox and wakes the intake, which wakes the pump, which wakes the
 *    dispatcher) at half that rate for `--seconds`, from an open-loop load generator in a worker
 *    thread. The mailbox commit instant is taken inside the ingress (after the INSERT returned; on
 *    the runner's ingress thread, which reports it, since the MySQL mailbox gives the ingress a
 *    thread of its own — docs/operations.md "The ingress thread"); the ack instant when the broker
 *    acknowledged the record. The event-loop figures are the main thread's (the pipeline's), with
 *    the ingress thread's utilization beside them.
 *
 *   node bench/run.mjs latency [--saturate 10000] [--seconds 30] [--rate <msg/s>] [--fraction 0.5] [--flights 500] [--ingress-thread auto|on|off]
 */
import { setMaxListeners } from "node:events";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { drained, startInproc } from "./fault/inproc.js";
import { arg, fmt, insertMailboxRows, latencyStats, machineInfo, numArg, printTable, runTag, sleep, writeReport } from "./fault/infra.js";
import { openLoop, type LoadResult, type OpenLoopOptions } from "./fault/load.js";
import { dnldThenFlops } from "./fault/stream.js";

const SATURATE = numArg("saturate", 10_000);
const SECONDS = numArg("seconds", 30);
const FIXED_RATE = numArg("rate", 0);
const FRACTION = numArg("fraction", 0.5);
const FLIGHTS = numArg("flights", 500);
const MAX_RUN = numArg("max-run", 200);
/** `http.ingressThread` of the runner fed through its ingress: auto (the default), on or off — an A/B of the ingress thread in one run sequence. */
const INGRESS_THREAD = arg("ingress-thread", "auto");

async function saturation(stream: readonly string[]): Promise<number> {
  const p = await startInproc({ tag: runTag("lat_sat"), maxRun: MAX_RUN, pollIntervalMs: 100 });
  try {
    const t0 = Date.now();
    await insertMailboxRows(p.pool, p.names, stream, { chunk: 500 });
    await drained(p, stream.length, 600_000);
    return stream.length / ((Math.max(...p.acked.values()) - t0) / 1000);
  } finally {
    await p.dispose();
  }
}

function loadInWorker(options: OpenLoopOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: options });
    worker.once("message", (r: LoadResult) => resolve(r));
    worker.once("error", reject);
  });
}

async function main(): Promise<void> {
  const machine = machineInfo();
  console.log(`latency: half the maximum sustained rate through the HTTP ingress; maxRun ${MAX_RUN}; http.ingressThread ${INGRESS_THREAD}`);
  console.log(`  machine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB, load ${machine.loadAverage1m}; PostgreSQL ${machine.postgres}, MariaDB ${machine.mariadb}, ${machine.kafka}`);
  let maxRate = Number.NaN;
  if (FIXED_RATE <= 0) {
    maxRate = await saturation(dnldThenFlops({ flights: FLIGHTS, messages: SATURATE }));
    console.log(`  maximum sustained rate (mailbox → Kafka, ${SATURATE} messages): ${fmt(maxRate)} msg/s`);
  }
  const rate = FIXED_RATE > 0 ? FIXED_RATE : Math.max(1, Math.round(maxRate * FRACTION));
  const count = Math.round(rate * SECONDS);
  const stream = dnldThenFlops({ flights: FLIGHTS, messages: count + 1, seed: 77, firstSeqn: 500_000 });

  const p = await startInproc({ tag: runTag("lat"), maxRun: MAX_RUN, overrides: { "http.ingressThread": INGRESS_THREAD } });
  try {
    const dnld = await fetch(new URL("/cminmsgs/send", p.url), { method: "POST", headers: { "content-type": "application/xml" }, body: stream[0]! });
    if (!dnld.ok) throw new Error(`DNLD refused: ${dnld.status}`);
    await drained(p, 1, 60_000, 50);
    await sleep(500);
    p.phases.clear();
    console.log(`  offering ${fmt(rate)} msg/s (${FIXED_RATE > 0 ? "--rate" : `${FRACTION} × maximum`}) for ${SECONDS} s: ${count} FLOP updates`);
    // How busy the runner's main event loop (this thread) was while the load ran, how late it ran
    // callbacks, and how busy the ingress thread's loop was.
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const elu0 = performance.eventLoopUtilization();
    const ingress0 = p.ingressLoop();
    const load = await loadInWorker({ url: p.url, bodies: stream.slice(1), rate, maxInFlight: 256 });
    const ingress1 = p.ingressLoop();
    const loop = {
      utilization: performance.eventLoopUtilization(elu0).utilization,
      // The ingress thread's loop (parsing, answers, appends), when the runner serves the ingress on one.
      ingressThreadUtilization:
        ingress0 && ingress1 ? (ingress1.active - ingress0.active) / Math.max(1e-9, ingress1.active + ingress1.idle - ingress0.active - ingress0.idle) : null,
      delayMs: { p50: loopDelay.percentile(50) / 1e6, p90: loopDelay.percentile(90) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
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
    const runs = { count: loadCommits.length, meanSize: latencies.length / Math.max(1, loadCommits.length), betweenCommitsMs: latencyStats(commitGaps) };
    const e2e = latencyStats(latencies);
    const stages = { commitToEnqueued: latencyStats(toEnqueue), enqueuedToProcessed: latencyStats(toCommit), processedToAck: latencyStats(toAck) };
    console.log();
    printTable(
      ["measure", "count", "p50 ms", "p90 ms", "p99 ms", "max ms"],
      [
        ["mailbox commit → Kafka ack", e2e.count, e2e.p50.toFixed(1), e2e.p90.toFixed(1), e2e.p99.toFixed(1), e2e.max.toFixed(1)],
        ["  stage: mailbox commit → enqueued (intake)", stages.commitToEnqueued.count, stages.commitToEnqueued.p50.toFixed(1), stages.commitToEnqueued.p90.toFixed(1), stages.commitToEnqueued.p99.toFixed(1), stages.commitToEnqueued.max.toFixed(1)],
        ["  stage: enqueued → pump commit", stages.enqueuedToProcessed.count, stages.enqueuedToProcessed.p50.toFixed(1), stages.enqueuedToProcessed.p90.toFixed(1), stages.enqueuedToProcessed.p99.toFixed(1), stages.enqueuedToProcessed.max.toFixed(1)],
        ["  stage: pump commit → Kafka ack (relay)", stages.processedToAck.count, stages.processedToAck.p50.toFixed(1), stages.processedToAck.p90.toFixed(1), stages.processedToAck.p99.toFixed(1), stages.processedToAck.max.toFixed(1)],
        ["POST /cminmsgs/send (due → answer)", load.latencyMs.count, load.latencyMs.p50.toFixed(1), load.latencyMs.p90.toFixed(1), load.latencyMs.p99.toFixed(1), load.latencyMs.max.toFixed(1)],
      ],
    );
    console.log();
    const phases = Object.fromEntries([...p.phases].map(([name, ms]) => [name, latencyStats(ms)]));
    printTable(
      ["phase of a pump step", "count", "mean ms", "p50 ms", "p90 ms", "p99 ms"],
      Object.entries(phases).map(([name, s]) => [name, s.count, s.mean.toFixed(2), s.p50.toFixed(2), s.p90.toFixed(2), s.p99.toFixed(2)]),
    );
    console.log();
    console.log(`  offered ${fmt(rate)} msg/s, accepted ${fmt(load.achievedPerSecond)} req/s (${load.ok} ok, ${load.refused} refused, ${load.failed} failed, ${load.lateStarts} late starts)`);
    const ingressThread = loop.ingressThreadUtilization === null ? "no ingress thread (the ingress shares the main loop)" : `the ingress thread's loop ${(loop.ingressThreadUtilization * 100).toFixed(0)} % busy`;
    console.log(`  main thread's event loop (pipeline; the ingress too when it has no thread of its own) during the load: ${(loop.utilization * 100).toFixed(0)} % busy; delay p50 ${loop.delayMs.p50.toFixed(1)} ms, p90 ${loop.delayMs.p90.toFixed(1)} ms, p99 ${loop.delayMs.p99.toFixed(1)} ms, max ${loop.delayMs.max.toFixed(1)} ms; ${ingressThread}`);
    console.log(`  pump runs during the load: ${runs.count}, ${runs.meanSize.toFixed(1)} messages each on average; time between commits p50 ${runs.betweenCommitsMs.p50.toFixed(1)} ms, p90 ${runs.betweenCommitsMs.p90.toFixed(1)} ms`);
    console.log(`  p50 ${e2e.p50.toFixed(1)} ms (target ≤ 15: ${e2e.p50 <= 15 ? "met" : "NOT met"}), p99 ${e2e.p99.toFixed(1)} ms (target < 34: ${e2e.p99 < 34 ? "met" : "NOT met"})`);
    const { ids: _ids, ...ingress } = load;
    const file = writeReport("latency", { maxRun: MAX_RUN, ingressThread: INGRESS_THREAD, saturateMessages: SATURATE, maxSustainedRate: maxRate, fraction: FRACTION, offeredRate: rate, seconds: SECONDS, machine, commitToAckMs: e2e, stagesMs: stages, pumpPhasesMs: phases, eventLoop: loop, runs, ingress });
    console.log(`  written ${file}`);
  } finally {
    await p.dispose();
  }
}

if (isMainThread) {
  // The runner's loops and in-flight calls share one AbortSignal: more than 10 listeners is normal.
  setMaxListeners(64);
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
} else {
  void openLoop(workerData as OpenLoopOptions).then((r) => parentPort!.postMessage(r));
}
