/**
 * Fan-out of reliable messages to subscriptions (issue 36 item 1): the built `msgx run` on
 * PostgreSQL and Kafka, a queue with 3 subscriptions against a queue with 1 (and one without
 * subscriptions, the single acknowledgement), in the same run and runner. Per queue, one plain
 * kafkajs consumer group per subscription reads `rmq-sub.<queue>.<subscription>` (or `rmq.<queue>`)
 * and acknowledges each record over HTTP (`POST /rm/v1/messages/<id>/ack?subscription=`); a
 * producer saves and sends messages (`POST /rm/v1/messages?confirm=true`, `--concurrency` calls
 * in flight). A message's latency is from the start of its confirm call to the answer of the last
 * subscription's acknowledgement. Two phases per mode: **latency**, `--latency-messages` sent one
 * at a time (the next once the previous is acknowledged by all: nothing queued), and **rate**,
 * `--messages` sent with `--concurrency` confirms in flight, messages over the time from the first
 * confirm to the last message acknowledged by all (its latencies include the backlog).
 *
 *   node bench/run.mjs reliable-fan-out [--messages 500] [--latency-messages 100] [--concurrency 4] [--rounds 1]
 *
 * Needs `packages/runner/dist` (npx pnpm build), PostgreSQL and Kafka.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPgStores } from "@msgx/adapters-pg";
import { spawnCliRunner } from "./fault/runner.js";
import { fmt, kafkaClient, latencyStats, machineInfo, numArg, printTable, runTag, URLS, writeReport } from "./fault/infra.js";

const MESSAGES = numArg("messages", 500);
const CONCURRENCY = numArg("concurrency", 4);
const ROUNDS = numArg("rounds", 1);
const LATENCY_MESSAGES = numArg("latency-messages", 100);
const TOKEN = "bench-reliable-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

interface Mode {
  readonly name: string;
  readonly queue: string;
  /** Empty: a queue without subscriptions (one acknowledgement on `rmq.<queue>`). */
  readonly subscriptions: readonly string[];
}

async function startRunner(tag: string, dir: string, modes: readonly Mode[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const config = join(dir, "msgx.json");
  const queues = Object.fromEntries(modes.filter((m) => m.subscriptions.length > 0).map((m) => [m.queue, { subscriptions: m.subscriptions }]));
  writeFileSync(config, JSON.stringify({ reliable: { token: TOKEN, jobIntervalMs: 1_000, queues } }));
  return spawnCliRunner(["-c", config, "--pg", URLS.pg, "--kafka", URLS.brokers, "--data-dir", join(dir, "data")], { MSGX_PG_SCHEMA: tag, MSGX_LOG_LEVEL: "warn", MSGX_KAFKA_MSG_TOPIC: `msg_${tag}`, MSGX_KAFKA_SCHD_TOPIC: `schd_${tag}`, MSGX_KAFKA_REF_TOPIC: `ref_${tag}` });
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(new URL(path, url), { method, headers: { ...auth, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, json: await res.json() };
}

/** Which subscriptions acknowledged each id, and when the last one's answer came. */
class Acks {
  readonly #by = new Map<string, Set<string>>();
  readonly #done = new Map<string, number>();
  readonly #waiters = new Map<string, () => void>();
  constructor(readonly needed: number) {}
  acked(id: string, subscription: string): void {
    const set = this.#by.get(id) ?? new Set<string>();
    set.add(subscription);
    this.#by.set(id, set);
    if (set.size === this.needed && !this.#done.has(id)) {
      this.#done.set(id, performance.now());
      this.#waiters.get(id)?.();
    }
  }
  doneAt(id: string): number | undefined {
    return this.#done.get(id);
  }
  wait(id: string, timeoutMs: number): Promise<void> {
    if (this.#done.has(id)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${id}: not acknowledged by all ${this.needed} within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.set(id, () => (clearTimeout(timer), resolve()));
    });
  }
}

/** One kafkajs consumer group per subscription (or one on the queue topic), acknowledging over HTTP. */
async function startConsumers(url: string, tag: string, mode: Mode, acks: Acks): Promise<() => Promise<void>> {
  const kafka = kafkaClient(`bench-fan-out-${mode.name}`);
  const admin = kafka.admin();
  await admin.connect();
  const readers = mode.subscriptions.length === 0 ? [{ sub: null, topic: `rmq.${mode.queue}` }] : mode.subscriptions.map((sub) => ({ sub, topic: `rmq-sub.${mode.queue}.${sub}` }));
  for (;;) {
    const present = new Set(await admin.listTopics());
    if (readers.every((r) => present.has(r.topic))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await admin.disconnect();
  const consumers = await Promise.all(
    readers.map(async ({ sub, topic }) => {
      const consumer = kafka.consumer({ groupId: `${tag}-${mode.name}-${sub ?? "queue"}`, maxWaitTimeInMs: 100 });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const id = (JSON.parse(message.value!.toString()) as { messageId: string }).messageId;
          const r = await call(url, "POST", `/rm/v1/messages/${encodeURIComponent(id)}/ack${sub === null ? "" : `?subscription=${sub}`}`, {});
          if (r.status !== 200) throw new Error(`ack ${id} (${sub}): ${r.status} ${JSON.stringify(r.json)}`);
          acks.acked(id, sub ?? "queue");
        },
      });
      return consumer;
    }),
  );
  return async () => void (await Promise.all(consumers.map((c) => c.disconnect())));
}

interface Result {
  readonly mode: string;
  readonly subscriptions: number;
  readonly messages: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  readonly latencyMs: ReturnType<typeof latencyStats>;
  /** The latency phase: one message at a time. */
  readonly unloadedMs: ReturnType<typeof latencyStats>;
}

async function confirm(url: string, mode: Mode, messageId: string): Promise<void> {
  const r = await call(url, "POST", "/rm/v1/messages?confirm=true", { messageId, queue: mode.queue, body: { booking: messageId, amount: 10 } });
  if (r.status !== 201) throw new Error(`prepare ${messageId}: ${r.status} ${JSON.stringify(r.json)}`);
}

async function measure(url: string, mode: Mode, round: number, acks: Acks): Promise<Result> {
  const unloaded: number[] = [];
  for (let i = 0; i < LATENCY_MESSAGES; i++) {
    const id = `${mode.name}-r${round}-one-${i}`;
    const s0 = performance.now();
    await confirm(url, mode, id);
    await acks.wait(id, 60_000);
    unloaded.push(acks.doneAt(id)! - s0);
  }
  const ids = Array.from({ length: MESSAGES }, (_, i) => `${mode.name}-r${round}-${i}`);
  const started = new Map<string, number>();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ids.length) {
        const messageId = ids[next++]!;
        started.set(messageId, performance.now());
        await confirm(url, mode, messageId);
      }
    }),
  );
  for (const id of ids) await acks.wait(id, 300_000);
  const seconds = (Math.max(...ids.map((id) => acks.doneAt(id)!)) - t0) / 1000;
  // The service's view agrees: the last messages are ACKNOWLEDGED.
  for (const id of ids.slice(-5)) {
    const m = await call(url, "GET", `/rm/v1/messages/${encodeURIComponent(id)}`);
    if (m.json.message?.status !== "ACKNOWLEDGED") throw new Error(`${id}: ${JSON.stringify(m.json).slice(0, 300)}`);
  }
  return {
    mode: mode.name,
    subscriptions: mode.subscriptions.length,
    messages: ids.length,
    seconds,
    messagesPerSecond: ids.length / seconds,
    latencyMs: latencyStats(ids.map((id) => acks.doneAt(id)! - started.get(id)!)),
    unloadedMs: latencyStats(unloaded),
  };
}

async function main(): Promise<void> {
  const tag = runTag("msgx_bench_rmfan");
  const dir = mkdtempSync(join(tmpdir(), "msgx-bench-rmfan-"));
  const modes: Mode[] = [
    { name: "none", queue: `${tag}.none`, subscriptions: [] },
    { name: "one", queue: `${tag}.one`, subscriptions: ["s1"] },
    { name: "three", queue: `${tag}.three`, subscriptions: ["s1", "s2", "s3"] },
  ];
  const runner = await startRunner(tag, dir, modes);
  const stops: (() => Promise<void>)[] = [];
  try {
    const acks = new Map(modes.map((m) => [m.name, new Acks(Math.max(1, m.subscriptions.length))]));
    // A warm-up message per queue: the relay creates the topics on its first send, then the consumers join.
    for (const mode of modes) {
      const r = await call(runner.url, "POST", "/rm/v1/messages?confirm=true", { messageId: `${mode.name}-warm-up`, queue: mode.queue, body: "warm-up" });
      if (r.status !== 201) throw new Error(`warm-up: ${r.status} ${JSON.stringify(r.json)}`);
      stops.push(await startConsumers(runner.url, tag, mode, acks.get(mode.name)!));
      await acks.get(mode.name)!.wait(`${mode.name}-warm-up`, 120_000);
    }
    const machine = machineInfo();
    const results: Result[] = [];
    for (let round = 1; round <= ROUNDS; round++) for (const mode of modes) results.push(await measure(runner.url, mode, round, acks.get(mode.name)!));
    printTable(
      ["mode", "subscriptions", "one at a time p50 ms", "p99 ms", "messages", "s", "msg/s", "under load p50 ms", "p99 ms"],
      results.map((r) => [r.mode, r.subscriptions, fmt(r.unloadedMs.p50, 1), fmt(r.unloadedMs.p99, 1), r.messages, fmt(r.seconds, 2), fmt(r.messagesPerSecond), fmt(r.latencyMs.p50, 1), fmt(r.latencyMs.p99, 1)]),
    );
    const rate = (name: string) => results.filter((r) => r.mode === name).reduce((s, r) => s + r.messagesPerSecond, 0) / ROUNDS;
    const ratio = rate("three") / rate("one");
    const p50 = (name: string) => results.filter((r) => r.mode === name).reduce((s, r) => s + r.unloadedMs.p50, 0) / ROUNDS;
    console.log(`fan-out to 3: ${fmt(ratio, 2)}× the rate of 1 subscription, ${fmt(p50("three") / p50("one"), 2)}× its one-at-a-time p50 (load average ${machine.loadAverage1m} on ${machine.nproc} CPUs)`);
    console.log(writeReport("reliable-fan-out", { machine, messages: MESSAGES, latencyMessages: LATENCY_MESSAGES, concurrency: CONCURRENCY, rounds: ROUNDS, results, ratio }));
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    await runner.stop();
    const pg = await createPgStores({ connectionString: URLS.pg, migrate: false, max: 1 });
    await pg.db.schema.dropSchema(tag).ifExists().cascade().execute().catch(() => undefined);
    await pg.close();
    const admin = kafkaClient("bench-fan-out-cleanup").admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.includes(tag));
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
