/**
 * Debezium 3.6.1.Final as a same-machine peer of msgx (issue 32 item 6), in one run, at the same
 * offered rates (`--rates`, `--seconds` each), on a PostgreSQL cluster (`wal_level=logical`) and a
 * MariaDB (binlog on, ROW) of this benchmark's own and the shared Kafka broker:
 *
 * (a) Debezium's PostgreSQL connector with the outbox event router over an outbox table: an
 *     open-loop load inserts outbox rows (autocommit); commit instant after the INSERT returned →
 *     the broker's ack of the routed record (bench/peers/debezium: a KafkaProducer with acks=all,
 *     idempotent, one request in flight, no linger, as msgx's).
 * (b) msgx at the same rate on the same two servers: the latency benchmark's fixed-rate path
 *     (bench/fault/fixed-rate.ts): mailbox commit inside the ingress → Kafka ack, with its intake
 *     stage (mailbox commit → the intake's enqueue into PostgreSQL returned).
 * (c) Debezium's MySQL connector on the mailbox table from MariaDB's binlog: an open-loop load
 *     inserts mailbox rows as the upstream does (one autocommit INSERT each); commit → the engine
 *     handed the record over (the counterpart of msgx's intake stage) and → the broker's ack.
 *
 *   node bench/run.mjs cdc-peers [--rates 100,500] [--seconds 30] [--warmup 300] [--flights 500] [--max-run 200]
 */
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createMailboxTables } from "@msgx/adapters-mysql";
import { atFixedRate, benchMain, type FixedRateResult } from "./fault/fixed-rate.js";
import { startInproc } from "./fault/inproc.js";
import { createTopics, deleteTopics, fmt, insertMailboxRows, latencyStats, listArg, machineInfo, mysqlPool, numArg, printTable, REPO, runMailboxNames, runTag, sleep, wallClockMs, writeReport, type LatencyStats } from "./fault/infra.js";
import { dnldThenFlops } from "./fault/stream.js";
import { startDebeziumPeer, type DebeziumPeer } from "./peers/debezium-peer.js";
import { startOwnMariadb, startOwnPostgres, type OwnServer } from "./peers/own-clusters.js";

const RATES = listArg("rates", "100,500");
const SECONDS = numArg("seconds", 30);
const WARMUP = numArg("warmup", 300);
const FLIGHTS = numArg("flights", 500);
const MAX_RUN = numArg("max-run", 200);
const PARTITIONS = 6;
/**
 * Debezium's MariaDB connector 3.6.1.Final is not on Maven Central; its MySQL connector takes
 * MariaDB 10.11 for MySQL ≥ 8.4 unless the server reports a version below 8.4 — and MySQL 5.7, since for 8.0 the JDBC driver asks for `transaction_isolation`, which MariaDB 10.11 calls `tx_isolation` (own-clusters.ts).
 */
const MYSQL_VERSION_PREFIX = "5.7.19";

interface PgPool {
  query(text: string, values?: readonly unknown[]): Promise<unknown>;
  end(): Promise<void>;
}
// Loaded at run time from bench/node_modules, as the peers benchmark does.
const pg = createRequire(join(REPO, "bench", "package.json"))("pg") as { Pool: new (o: Record<string, unknown>) => PgPool };


/**
 * Calls `insert(i)` for i in [0, count) at `rate` per second, each due at t0 + i / rate whether or
 * not earlier ones returned (at most `maxInFlight` at once), and the instant each returned.
 */
async function openLoopInserts(rate: number, count: number, insert: (i: number) => Promise<number>, maxInFlight = 64): Promise<{ committed: Map<number, number>; lateStarts: number }> {
  const committed = new Map<number, number>();
  let inFlight = 0;
  let next = 0;
  let lateStarts = 0;
  let failure: unknown;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const tick = () => {
      if (failure !== undefined) return reject(failure);
      const at = performance.now();
      while (next < count && inFlight < maxInFlight) {
        const due = t0 + (next / rate) * 1000;
        if (due > at) break;
        if (at - due > 5) lateStarts += 1;
        inFlight += 1;
        insert(next).then(
          (id) => {
            committed.set(id, wallClockMs());
            inFlight -= 1;
          },
          (e: unknown) => (failure = e),
        );
        next += 1;
      }
      if (next >= count && inFlight === 0) return resolve();
      setTimeout(tick, 1);
    };
    tick();
  });
  return { committed, lateStarts };
}

interface PeerRun {
  readonly rate: number;
  readonly records: number;
  /** Commit → the broker's ack. */
  readonly toAck: LatencyStats;
  /** Commit → the engine handed the record to the producer. */
  readonly toHanded: LatencyStats;
  readonly lateStarts: number;
  /** The JVM's CPU (user + system) per record during the load, ms. */
  readonly cpuPerRecordMs: number;
  /** The JVM's CPU in the 2 s before the load, idle, as a percentage of one CPU. */
  readonly idleCpuPercent: number;
}

/** Warms the engine (and the JIT) with `WARMUP` records at 100/s, then measures each rate. */
async function measurePeer(peer: DebeziumPeer, insert: (i: number) => Promise<number>, label: string): Promise<PeerRun[]> {
  // The first records may precede the start of streaming: insert one at a time until one arrives.
  let probe = 0;
  for (const deadline = Date.now() + 120_000; ; ) {
    const id = await insert(probe++);
    if (await peer.acked(id, 2_000).then(() => true, () => false)) break;
    if (Date.now() > deadline) throw new Error(`${label}: no record arrived within 120 s`);
  }
  let offset = probe;
  const warm = await openLoopInserts(100, WARMUP, (i) => insert(offset + i));
  offset += WARMUP;
  await Promise.all([...warm.committed.keys()].map((id) => peer.acked(id, 120_000)));
  const out: PeerRun[] = [];
  for (const rate of RATES) {
    const count = Math.round(rate * SECONDS);
    // The engine idle between loads: what its polling costs with nothing to do.
    const idle0 = peer.cpuMs();
    await sleep(2_000);
    const idleCpuPercent = ((peer.cpuMs() - idle0) / 2_000) * 100;
    const cpu0 = peer.cpuMs();
    const base = offset;
    const { committed, lateStarts } = await openLoopInserts(rate, count, (i) => insert(base + i));
    offset += count;
    const acks = await Promise.all([...committed.keys()].map((id) => peer.acked(id, 300_000)));
    const cpu = peer.cpuMs() - cpu0;
    const commits = [...committed.values()];
    out.push({
      rate,
      records: acks.length,
      toAck: latencyStats(acks.map((a, i) => a.ackedAt - commits[i]!)),
      toHanded: latencyStats(acks.map((a, i) => a.handedAt - commits[i]!)),
      lateStarts,
      cpuPerRecordMs: cpu / acks.length,
      idleCpuPercent,
    });
    const r = out.at(-1)!;
    console.log(`  ${label} at ${rate} msg/s: commit → ack p50 ${r.toAck.p50.toFixed(1)} ms, p99 ${r.toAck.p99.toFixed(1)} ms (${r.records} records, ${lateStarts} late starts; JVM CPU ${r.cpuPerRecordMs.toFixed(2)} ms per record, ${idleCpuPercent.toFixed(0)} % of a CPU idle)`);
  }
  return out;
}

/** (a) Debezium's PostgreSQL connector + outbox event router. */
async function debeziumOutbox(server: OwnServer, payloads: readonly string[]): Promise<PeerRun[]> {
  const tag = runTag("cdc_outbox");
  const table = `outbox_${tag}`;
  const topic = `cdc_${tag}`;
  const pool = new pg.Pool({ connectionString: server.url, max: 8 });
  let peer: DebeziumPeer | undefined;
  try {
    // The table the outbox event router expects by default.
    await pool.query(`CREATE TABLE ${table} (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), aggregatetype varchar(255) NOT NULL, aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload jsonb)`);
    await createTopics([topic], PARTITIONS);
    peer = await startDebeziumPeer({ mode: "pg-outbox", port: server.port, db: "postgres", table: `public.${table}`, topic, slot: tag });
    const insert = `INSERT INTO ${table} (aggregatetype, aggregateid, type, payload) VALUES ('flight', $1, 'FLOP', $2)`;
    return await measurePeer(peer, async (i) => {
      await pool.query(insert, [String(i), JSON.stringify({ raw: payloads[i % payloads.length] })]);
      return i;
    }, "Debezium PostgreSQL outbox");
  } finally {
    await peer?.stop();
    // msgx runs on this cluster next: no slot of a stopped peer keeps WAL for it.
    await pool.query("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1", [tag]).catch(() => undefined);
    await pool.end();
    await deleteTopics([topic]);
  }
}

/** (c) Debezium's MySQL connector on the mailbox table, from the binlog. */
async function debeziumBinlog(server: OwnServer, raws: readonly string[]): Promise<PeerRun[]> {
  const tag = runTag("cdc_binlog");
  const names = runMailboxNames(tag);
  const topic = `cdc_${tag}`;
  const pool = mysqlPool(8, server.url);
  let peer: DebeziumPeer | undefined;
  try {
    await createMailboxTables(pool as never, names);
    await createTopics([topic], PARTITIONS);
    peer = await startDebeziumPeer({ mode: "mysql-binlog", port: server.port, db: "test", table: `test.${names.inbound.table}`, topic });
    return await measurePeer(peer, async (i) => (await insertMailboxRows(pool, names, [raws[i % raws.length]!], { chunk: 1 })).ids[0]!, "Debezium MySQL binlog");
  } finally {
    await peer?.stop();
    await pool.end();
    await deleteTopics([topic]);
  }
}

/** (b) msgx through its ingress, a fresh pipeline per rate, on the benchmark's own servers. */
interface MsgxRun {
  readonly rate: number;
  readonly result: FixedRateResult;
  /** The runner's CPU per message during the load, ms (`FixedRateResult.cpu`: the generator runs in a process of its own). */
  readonly cpuPerMessageMs: number;
}

async function msgx(urls: { pg: string; mysql: string }): Promise<MsgxRun[]> {
  const out: MsgxRun[] = [];
  for (const [n, rate] of RATES.entries()) {
    const stream = dnldThenFlops({ flights: FLIGHTS, messages: Math.round(rate * SECONDS) + 1, seed: 77 + n, firstSeqn: 500_000 });
    const p = await startInproc({ tag: runTag("cdc_msgx"), maxRun: MAX_RUN, urls });
    try {
      const result = await atFixedRate(p, stream, rate);
      out.push({ rate, result, cpuPerMessageMs: result.cpu.runnerMs });
      console.log(`  msgx at ${rate} msg/s: commit → ack p50 ${result.e2e.p50.toFixed(1)} ms, p99 ${result.e2e.p99.toFixed(1)} ms (${result.e2e.count} messages; offered ${rate}/s, accepted ${fmt(result.load.achievedPerSecond)}/s, ${result.load.refused} refused, ${result.load.failed} failed)`);
    } finally {
      await p.dispose();
    }
  }
  return out;
}

const row = (tool: string, measure: string, rate: number, s: LatencyStats, cpu: number): (string | number)[] => [tool, measure, rate, s.p50.toFixed(1), s.p90.toFixed(1), s.p99.toFixed(1), s.max.toFixed(1), s.count, fmt(cpu, 2)];
const ratio = (a: number, b: number): string => (a / b).toFixed(2);

async function main(): Promise<void> {
  // An interrupted run still stops its servers and Debezium (their exit handlers).
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const machine = machineInfo();
  console.log(`cdc-peers: Debezium 3.6.1.Final beside msgx at ${RATES.join(", ")} msg/s, ${SECONDS} s each; maxRun ${MAX_RUN}`);
  console.log(`  machine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB, load ${machine.loadAverage1m} at the start; ${machine.kafka}`);
  const payloads = dnldThenFlops({ flights: FLIGHTS, messages: 2_001, seed: 5 }).slice(1);
  const servers: OwnServer[] = [];
  const process0 = Date.now();
  try {
    const [pgServer, myServer] = await Promise.all([startOwnPostgres(), startOwnMariadb(MYSQL_VERSION_PREFIX)]);
    servers.push(pgServer, myServer);
    console.log(`  own PostgreSQL (wal_level=logical) on ${pgServer.port}, own MariaDB ${myServer.version} (binlog ROW, reporting version ${MYSQL_VERSION_PREFIX}-…) on ${myServer.port}`);
    const outbox = await debeziumOutbox(pgServer, payloads);
    const ours = await msgx({ pg: pgServer.url, mysql: myServer.url });
    const binlog = await debeziumBinlog(myServer, payloads);

    console.log();
    printTable(
      ["tool", "measure", "msg/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "records", "CPU ms/rec"],
      [
        ...outbox.map((r) => row("Debezium PG outbox", "commit → Kafka ack", r.rate, r.toAck, r.cpuPerRecordMs)),
        ...ours.map((r) => row("msgx", "commit → Kafka ack", r.rate, r.result.e2e, r.cpuPerMessageMs)),
        ...binlog.map((r) => row("Debezium MySQL binlog", "commit → Kafka ack", r.rate, r.toAck, r.cpuPerRecordMs)),
        ...binlog.map((r) => row("Debezium MySQL binlog", "commit → handed over", r.rate, r.toHanded, Number.NaN)),
        ...ours.map((r) => row("msgx intake", "commit → enqueued", r.rate, r.result.stages.commitToEnqueued, Number.NaN)),
      ],
    );
    console.log();
    for (const [i, rate] of RATES.entries()) {
      const m = ours[i]!.result.e2e;
      const d = outbox[i]!.toAck;
      console.log(`  at ${rate} msg/s: msgx p50 ÷ Debezium p50: ${ratio(m.p50, d.p50)} (target ≤ 0.5: ${m.p50 / d.p50 <= 0.5 ? "met" : "NOT met"})`);
      console.log(`  at ${rate} msg/s: msgx p99 ÷ Debezium p99: ${ratio(m.p99, d.p99)} (target ≤ 0.5: ${m.p99 / d.p99 <= 0.5 ? "met" : "NOT met"})`);
      const intake = ours[i]!.result.stages.commitToEnqueued;
      const handed = binlog[i]!.toHanded;
      console.log(`  at ${rate} msg/s: msgx intake (commit → enqueued) ÷ Debezium MySQL connector (commit → handed over): p50 ${ratio(intake.p50, handed.p50)}, p99 ${ratio(intake.p99, handed.p99)}`);
    }
    const loadAtEnd = Math.round(loadavg()[0]! * 100) / 100;
    console.log(`  load average at the end: ${loadAtEnd}`);
    const file = writeReport("cdc-peers", { loadAtEnd, rates: RATES, seconds: SECONDS, warmup: WARMUP, maxRun: MAX_RUN, machine, debeziumPgOutbox: outbox, msgx: ours, debeziumMysqlBinlog: binlog });
    console.log(`  written ${file} (${fmt((Date.now() - process0) / 1000)} s)`);
  } finally {
    for (const s of servers) await s.stop();
  }
}

benchMain(main);
