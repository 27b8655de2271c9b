/**
 * End-to-end throughput: mailbox rows on real MariaDB → the runner's pipeline in this process
 * (intake poller, pump, backfill, msg dispatcher, schd flusher over the real adapters) →
 * PostgreSQL → Kafka acks. One mode per `maxRun`, each on its own schema, mailbox tables and
 * topics, all in the same run; the ratio of each mode to `maxRun: 1` (one message per transaction).
 *
 * The stream is a SCHD/DNLD of `--flights` flights then FLOP updates (`--messages` in all),
 * inserted into the mailbox as fast as MariaDB takes them (500 rows per INSERT) while the pipeline
 * runs: the pipeline is saturated, so the latency columns (insert commit → Kafka ack of the
 * message's msg-topic record) are mostly queueing behind the backlog. `bench/latency.bench.ts`
 * measures latency at a sustainable rate.
 *
 *   node bench/run.mjs e2e [--messages 20000] [--flights 500] [--runs 1,10,50,200,500]
 *                          [--baseline-messages 2000] [--poll-ms 100] [--claim-batch 50]
 */
import { benchMain } from "./fault/fixed-rate.js";
import { drained, startInproc } from "./fault/inproc.js";
import { fmt, insertMailboxRows, latencyStats, listArg, machineInfo, numArg, printTable, runTag, writeReport, type LatencyStats } from "./fault/infra.js";
import { dnldThenFlops } from "./fault/stream.js";

const MESSAGES = numArg("messages", 20_000);
const FLIGHTS = numArg("flights", 500);
const RUNS = listArg("runs", "1,10,50,200,500");
/** maxRun 1 runs at ~100 msg/s here: a prefix of the same stream keeps the run short. */
const BASELINE_MESSAGES = numArg("baseline-messages", 2_000);
const POLL_MS = numArg("poll-ms", 100);
/** Rows per mailbox scan (the runner's default is 50). */
const CLAIM_BATCH = numArg("claim-batch", 50);

interface ModeResult {
  readonly maxRun: number;
  readonly messages: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  readonly insertSeconds: number;
  readonly latencyMs: LatencyStats;
  readonly byStatus: Record<string, number>;
  readonly msgRecordsAcked: number;
  /** CPU seconds this process (the whole pipeline) used during the mode: user + system. */
  readonly processCpuSeconds: number;
}

async function runMode(maxRun: number, raws: readonly string[]): Promise<ModeResult> {
  const p = await startInproc({ tag: runTag(`e2e_${maxRun}`), maxRun, pollIntervalMs: POLL_MS, claimBatch: CLAIM_BATCH });
  try {
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    const { ids, committedAt } = await insertMailboxRows(p.pool, p.names, raws, { chunk: 500 });
    const insertSeconds = (Date.now() - t0) / 1000;
    const status = await drained(p, raws.length, 900_000);
    const end = Math.max(...p.acked.values());
    const cpu = process.cpuUsage(cpu0);
    const latencies = ids.flatMap((id, i) => (p.acked.has(id) ? [p.acked.get(id)! - committedAt[i]!] : []));
    const seconds = (end - t0) / 1000;
    return {
      maxRun,
      messages: raws.length,
      seconds,
      messagesPerSecond: raws.length / seconds,
      insertSeconds,
      latencyMs: latencyStats(latencies),
      byStatus: Object.fromEntries(Object.entries(status.byStatus).filter(([, n]) => n > 0)),
      msgRecordsAcked: p.ackedRecords(),
      processCpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    await p.dispose();
  }
}

async function main(): Promise<void> {
  const stream = dnldThenFlops({ flights: FLIGHTS, messages: MESSAGES });
  const machine = machineInfo();
  console.log(`e2e: MariaDB → pipeline → PostgreSQL → Kafka; DNLD of ${FLIGHTS} flights + ${MESSAGES - 1} FLOP updates; maxRun ${RUNS.join(", ")} (maxRun 1 on the first ${BASELINE_MESSAGES})`);
  console.log(`  machine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB, load ${machine.loadAverage1m}; PostgreSQL ${machine.postgres}, MariaDB ${machine.mariadb}, ${machine.kafka}`);
  const results: ModeResult[] = [];
  for (const maxRun of RUNS) {
    const raws = maxRun === 1 ? stream.slice(0, Math.min(BASELINE_MESSAGES, stream.length)) : stream;
    const r = await runMode(maxRun, raws);
    results.push(r);
    console.log(`  maxRun ${String(maxRun).padStart(3)}: ${fmt(r.messagesPerSecond).padStart(6)} msg/s over ${r.messages} messages (${r.seconds.toFixed(1)} s; latency p50 ${fmt(r.latencyMs.p50)} ms, p99 ${fmt(r.latencyMs.p99)} ms; ${JSON.stringify(r.byStatus)})`);
  }
  const baseline = results.find((r) => r.maxRun === 1);
  const ratio = (r: ModeResult) => (baseline ? r.messagesPerSecond / baseline.messagesPerSecond : Number.NaN);
  console.log();
  printTable(
    ["maxRun", "messages", "seconds", "msg/s", "× maxRun 1", "p50 ms", "p99 ms", "max ms", "msg records", "node CPU s"],
    results.map((r) => [String(r.maxRun), r.messages, r.seconds.toFixed(1), r.messagesPerSecond, Number.isFinite(ratio(r)) ? `${ratio(r).toFixed(1)}×` : "—", r.latencyMs.p50, r.latencyMs.p99, r.latencyMs.max, r.msgRecordsAcked, r.processCpuSeconds.toFixed(1)]),
  );
  const file = writeReport("e2e", {
    messages: MESSAGES,
    flights: FLIGHTS,
    baselineMessages: BASELINE_MESSAGES,
    pollIntervalMs: POLL_MS,
    claimBatch: CLAIM_BATCH,
    machine,
    results,
    ratios: Object.fromEntries(results.filter((r) => r !== baseline).map((r) => [`maxRun${r.maxRun}`, ratio(r)])),
  });
  console.log(`  written ${file}`);
}

benchMain(main);
