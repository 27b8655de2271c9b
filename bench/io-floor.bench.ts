/**
 * The I/O floor of a message at a fixed rate: what the runner's CPU per message would be if msgx did
 * nothing but its round trips. The same drivers (node:http, mysql2, node-postgres with named
 * prepared statements, kafkajs), the same open-loop generator in a child process as `latency`,
 * the same statements per message as the runner at a low rate, and none of msgx's logic (no XML
 * decoding, no decisions, no kysely, no metrics, no logging):
 *
 * 1. the ingress: `POST /cminmsgs/send` → one MariaDB INSERT (autocommit) → the id answered;
 * 2. the intake: one PostgreSQL INSERT of the row (`enqueue`);
 * 3. the pump: one PostgreSQL statement that marks the row done, changes its flight, writes two
 *    events of ~1 KB and registers the write-back todo (`commitRun`'s one round trip);
 *    `--merged` folds step 2 into this statement (what merging the intake's `enqueue` with the
 *    pump's commit would leave);
 * 4. the relay: one Kafka transaction of the two records (AddPartitionsToTxn, Produce, EndTxn;
 *    acks=all, idempotent, one request in flight, the port's retries; a topic of one partition, so
 *    a transaction adds one partition where the runner's six may take two), then its mark
 *    gathered for `--mark-delay-ms`;
 *    `--transactions false` sends without a transaction (one Produce request);
 * 5. the write-back: every `--backfill-delay-ms`, one MariaDB UPDATE and one PostgreSQL DELETE
 *    of the todos gathered.
 *
 * Each stage runs one call at a time and takes everything waiting, as the runner's loops do. The
 * figure is this process's CPU (`process.cpuUsage()`, every thread) per accepted message during
 * the load; `latency --rate` prints the runner's on the same terms.
 *
 *   node bench/run.mjs io-floor [--rate 100] [--seconds 15] [--merged false|true] [--transactions true|false] [--producers 1] [--mark-delay-ms 50] [--backfill-delay-ms 500]
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join } from "node:path";
import { DEFAULT_PRODUCER_RETRY, stopIdleRequestChecks } from "@msgx/adapters-kafka";
import { cacheTransactionCoordinators } from "../packages/adapters-kafka/src/transaction-coordinator-cache.js";
import { benchMain, loadInChild } from "./fault/fixed-rate.js";
import { createTopics, deleteTopics, flagArg, fmt, kafkaClient, latencyStats, machineInfo, mysqlPool, numArg, REPO, runTag, sleep, systemCalls, URLS, writeReport } from "./fault/infra.js";
import { dnldThenFlops } from "./fault/stream.js";

interface PgPool {
  query<R = Record<string, unknown>>(query: string | { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}
// Loaded at run time from bench/node_modules, as the peers benchmark does.
const pg = createRequire(join(REPO, "bench", "package.json"))("pg") as { Pool: new (o: Record<string, unknown>) => PgPool };

const RATE = numArg("rate", 100);
const SECONDS = numArg("seconds", 15);
const MERGED = flagArg("merged", false);
/** false: an idempotent producer without a transaction, one Produce request a send (what the runner does without fencing). */
const TRANSACTIONS = flagArg("transactions", true);
/** Transactional producers taking turns, one send each: a send need not wait for the markers of the previous commit. */
const PRODUCERS = numArg("producers", 1);
const MARK_DELAY_MS = numArg("mark-delay-ms", 50);
const BACKFILL_DELAY_MS = numArg("backfill-delay-ms", 500);
const FLIGHTS = 500;
/** A flight's state as the pump writes it back, and each event's payload: about the runner's sizes. */
const STATE = JSON.stringify({ flight: "CA1234", legs: [{ from: "PEK", to: "SHA" }], times: { STD: "2026-03-05T08:00:00Z", ETD: "2026-03-05T08:10:00Z" }, pad: "x".repeat(400) });
const PAYLOAD = JSON.stringify({ type: "FLOP", changes: [{ field: "ETD", from: "08:00", to: "08:10" }], state: JSON.parse(STATE) as unknown });

/** One stage's loop: runs `work` on everything queued, one call at a time. */
function stage<T>(work: (items: T[]) => Promise<void>, onError: (e: unknown) => void): (item: T) => void {
  let queue: T[] = [];
  let busy = false;
  const drain = async () => {
    busy = true;
    while (queue.length > 0) {
      const items = queue;
      queue = [];
      await work(items).catch(onError);
    }
    busy = false;
  };
  return (item) => {
    queue.push(item);
    if (!busy) void drain();
  };
}

/** Gathers items and hands them to `work` once the oldest waited `delayMs` (0: at once). */
function gathered<T>(delayMs: number, work: (items: T[]) => Promise<void>, onError: (e: unknown) => void): { add: (items: T[]) => void; flush: () => Promise<void> } {
  let items: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const flush = () => {
    timer = undefined;
    const batch = items;
    items = [];
    if (batch.length > 0) running = running.then(() => work(batch)).catch(onError);
    return running;
  };
  return {
    add: (more) => {
      items.push(...more);
      if (delayMs === 0) void flush();
      else timer ??= setTimeout(flush, delayMs);
    },
    flush: async () => {
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}

async function main(): Promise<void> {
  const machine = machineInfo();
  const tag = runTag("floor");
  const schema = `floor_${tag}`;
  const mailbox = `floor_mailbox_${tag}`;
  const topic = `floor-${tag}`;
  console.log(`io-floor: msgx's round trips per message without msgx, ${fmt(RATE)} msg/s for ${SECONDS} s; merged ${MERGED}; transactions ${TRANSACTIONS}; producers ${PRODUCERS}; mark delay ${MARK_DELAY_MS} ms; write-back delay ${BACKFILL_DELAY_MS} ms`);
  console.log(`  machine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB, load ${machine.loadAverage1m}; PostgreSQL ${machine.postgres}, MariaDB ${machine.mariadb}, ${machine.kafka}`);

  const my = mysqlPool(4);
  const pool = new pg.Pool({ connectionString: URLS.pg, max: 4 });
  await my.query(`CREATE TABLE ${mailbox} (id BIGINT AUTO_INCREMENT PRIMARY KEY, body MEDIUMTEXT NOT NULL, status VARCHAR(16) NOT NULL, received DATETIME NOT NULL, processed DATETIME NULL)`);
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(`
    CREATE TABLE ${schema}.inbox (id bigint PRIMARY KEY, body text NOT NULL, status text NOT NULL);
    CREATE TABLE ${schema}.flight (id int PRIMARY KEY, state jsonb NOT NULL, version int NOT NULL);
    CREATE TABLE ${schema}.event (id bigserial PRIMARY KEY, topic text NOT NULL, key text NOT NULL, payload text NOT NULL, sent_at timestamptz);
    CREATE TABLE ${schema}.todo (id bigint PRIMARY KEY);
    INSERT INTO ${schema}.flight SELECT g, '${STATE}'::jsonb, 0 FROM generate_series(0, ${FLIGHTS - 1}) g;`);
  await createTopics([topic], 1);
  // The two kafkajs fixes the runner's producer has (docs/kafka.md): the floor is these drivers at their best.
  const kafka = kafkaClient("msgx-bench-floor");
  stopIdleRequestChecks(kafka);
  cacheTransactionCoordinators(kafka);
  const producers = Array.from({ length: TRANSACTIONS ? PRODUCERS : 1 }, (_, i) =>
    kafka.producer({ idempotent: true, maxInFlightRequests: 1, ...(TRANSACTIONS ? { transactionalId: `floor-${tag}-${i}` } : {}), retry: DEFAULT_PRODUCER_RETRY }),
  );
  for (const p of producers) await p.connect();
  let turn = 0;

  const failures: unknown[] = [];
  const onError = (e: unknown) => void failures.push(e);
  const acked = new Map<number, number>();
  const appendedAt = new Map<number, number>();
  const inbox = `${schema}.inbox`;
  const commitEvents = `
    e AS (INSERT INTO ${schema}.event (topic, key, payload) SELECT $4, k, $5 FROM unnest($6::text[]) k RETURNING id),
    f AS (UPDATE ${schema}.flight SET state = $2::jsonb, version = version + 1 WHERE id = ANY($3::int[])),
    t AS (INSERT INTO ${schema}.todo SELECT unnest($1::bigint[]))
    SELECT id FROM e ORDER BY id`;
  const commitSql = MERGED
    ? `WITH i AS (INSERT INTO ${inbox} (id, body, status) SELECT id, body, 'SUCCEEDED' FROM unnest($1::bigint[], $7::text[]) AS r(id, body)), ${commitEvents}`
    : `WITH i AS (UPDATE ${inbox} SET status = 'SUCCEEDED' WHERE id = ANY($1::bigint[])), ${commitEvents}`;

  // The write-back of committed rows, gathered (`pipeline.backfillDelayMs`).
  const writeBack = gathered<number>(BACKFILL_DELAY_MS, async (ids) => {
    await my.query(`UPDATE ${mailbox} SET status = 'DONE', processed = UTC_TIMESTAMP() WHERE id IN (?)`, [ids]);
    await pool.query({ name: "floor-todo-delete", text: `DELETE FROM ${schema}.todo WHERE id = ANY($1::bigint[])`, values: [ids] });
  }, onError);
  // The relay's marks, gathered (`delivery.markDelayMs`).
  const marks = gathered<string>(MARK_DELAY_MS, async (ids) => {
    await pool.query({ name: "floor-mark", text: `UPDATE ${schema}.event SET sent_at = now() WHERE id = ANY($1::bigint[])`, values: [ids] });
  }, onError);
  const relay = stage<{ eventIds: string[]; messageIds: number[] }>(async (runs) => {
    const messages = runs.flatMap((r) => r.eventIds.map((id) => ({ key: id, value: PAYLOAD })));
    const producer = producers[turn++ % producers.length]!;
    if (TRANSACTIONS) {
      const tx = await producer.transaction();
      try {
        await tx.send({ topic, acks: -1, messages });
        await tx.commit();
      } catch (e) {
        await tx.abort().catch(() => undefined);
        throw e;
      }
    } else await producer.send({ topic, acks: -1, messages });
    const now = performance.now();
    for (const r of runs) for (const id of r.messageIds) acked.set(id, now);
    marks.add(runs.flatMap((r) => r.eventIds));
  }, onError);
  const pump = stage<{ id: number; body: string }>(async (rows) => {
    const ids = rows.map((r) => r.id);
    const keys = rows.flatMap((r) => [`${r.id}:msg`, `${r.id}:schd`]);
    const values: unknown[] = [ids, STATE, rows.map((r) => r.id % FLIGHTS), topic, PAYLOAD, keys];
    if (MERGED) values.push(rows.map((r) => r.body));
    const events = await pool.query<{ id: string }>({ name: "floor-commit", text: commitSql, values });
    relay({ eventIds: events.rows.map((e) => e.id), messageIds: ids });
    writeBack.add(ids);
  }, onError);
  const intake = stage<{ id: number; body: string }>(async (rows) => {
    if (!MERGED) {
      await pool.query({
        name: "floor-enqueue",
        text: `INSERT INTO ${inbox} (id, body, status) SELECT id, body, 'PENDING' FROM unnest($1::bigint[], $2::text[]) AS r(id, body)`,
        values: [rows.map((r) => r.id), rows.map((r) => r.body)],
      });
    }
    for (const r of rows) pump(r);
  }, onError);

  const ingress = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      const [result] = await my.execute(`INSERT INTO ${mailbox} (body, status, received) VALUES (?, 'VALID', UTC_TIMESTAMP())`, [body]);
      const id = Number((result as { insertId: number }).insertId);
      appendedAt.set(id, performance.now());
      res.writeHead(200, { "content-type": "text/plain" }).end(String(id));
      intake({ id, body });
    } catch (e) {
      onError(e);
      res.writeHead(503).end();
    }
  };
  const server = createServer((req, res) => void ingress(req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  try {
    const stream = dnldThenFlops({ flights: FLIGHTS, messages: Math.round(RATE * SECONDS) + 1, seed: 77, firstSeqn: 500_000 }).slice(1);
    // Warm every statement and the producer before the window, as the runner is warm when its load starts.
    const warm = await fetch(`${url}/cminmsgs/send`, { method: "POST", body: stream[0]! });
    const warmId = Number(await warm.text());
    while (!acked.has(warmId) && failures.length === 0) await sleep(10);
    const generator = await loadInChild({ url, bodies: stream.slice(1), rate: RATE, maxInFlight: 256 });
    const idle0 = process.cpuUsage();
    const idleStart = performance.now();
    await sleep(3_000);
    const idleUsed = process.cpuUsage(idle0);
    const idleMsPerSecond = (idleUsed.user + idleUsed.system) / 1000 / ((performance.now() - idleStart) / 1000);
    const cpu0 = process.cpuUsage();
    const calls0 = systemCalls();
    const answer = await generator.run();
    const cpuUsed = process.cpuUsage(cpu0);
    const calls1 = systemCalls();
    const ok = answer.result.ok;
    while (acked.size < ok + 1 && failures.length === 0) await sleep(20);
    if (failures.length > 0) throw failures[0];
    await marks.flush();
    await writeBack.flush();
    const e2e = latencyStats([...appendedAt].map(([id, at]) => acked.get(id)! - at));
    const per = (us: number) => us / 1000 / Math.max(1, ok);
    console.log(`  offered ${fmt(RATE)} msg/s, accepted ${ok} of ${answer.result.sent}`);
    console.log(`  mailbox commit → Kafka ack: p50 ${e2e.p50.toFixed(1)} ms, p90 ${e2e.p90.toFixed(1)} ms, p99 ${e2e.p99.toFixed(1)} ms`);
    console.log(`  system calls per message: ${((calls1.writes - calls0.writes) / Math.max(1, ok)).toFixed(1)} writes, ${((calls1.reads - calls0.reads) / Math.max(1, ok)).toFixed(1)} reads`);
    console.log(`  CPU while idle just before the load: ${idleMsPerSecond.toFixed(1)} ms per second`);
    console.log(
      `  I/O floor CPU per message: ${per(cpuUsed.user + cpuUsed.system).toFixed(2)} ms (user ${per(cpuUsed.user).toFixed(2)} + system ${per(cpuUsed.system).toFixed(2)}; the load generator ${per(answer.cpu.user + answer.cpu.system).toFixed(2)} ms, not counted)`,
    );
    writeReport("io-floor", { machine, rate: RATE, seconds: SECONDS, merged: MERGED, transactions: TRANSACTIONS, producers: PRODUCERS, markDelayMs: MARK_DELAY_MS, backfillDelayMs: BACKFILL_DELAY_MS, accepted: ok, e2e, idleMsPerSecond, cpuMsPerMessage: per(cpuUsed.user + cpuUsed.system), userMsPerMessage: per(cpuUsed.user), systemMsPerMessage: per(cpuUsed.system), writeCallsPerMessage: (calls1.writes - calls0.writes) / Math.max(1, ok), readCallsPerMessage: (calls1.reads - calls0.reads) / Math.max(1, ok) });
  } finally {
    server.close();
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await pool.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await pool.end();
    await my.query(`DROP TABLE ${mailbox}`).catch(() => undefined);
    await my.end();
    await deleteTopics([topic]).catch(() => undefined);
  }
}

benchMain(main);
