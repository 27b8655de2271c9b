// A consumer service with no msgx code: a plain kafkajs consumer (or, for the embedded runner, a
// reader of its JSON-lines topic file) that acknowledges over HTTP, as docs/reliable-message.md
// tells a consumer in another language to do.
//
//   node consumer.mjs --topic T (--brokers B --group G | --jsonl FILE) [--url U] [--token T]
//                     [--mode ack|none] [--fail-times N] [--silent-times N]
//                     [--subscription S] [--delay-ms N]
//
// --mode ack (default): each record's handler runs, then POST /rm/v1/messages/<id>/ack. The first
//   N deliveries of a message id (--fail-times, default 0) "fail": POST …/reject {reason} instead;
//   with --silent-times N the first N get no answer at all (a consumer that died before its ack).
//   With --only-suffix S, both counts apply only to message ids ending in S (the others are handled).
//   A warm-up message (id ending in "-warm-up") is always handled: it only shows the consumer reads.
//   A message id whose handler already succeeded is not handled again (the consumer's dedupe on
//   messageId, as a consume log does), only acknowledged again.
// --subscription S: the consumer of one subscription of a queue with subscriptions: it acks and
//   rejects with ?subscription=S, and a record whose envelope names another subscription is
//   reported with "foreign": true and not answered.
// --delay-ms N: a slow handler: each record waits N ms before its answer.
// --mode none: read only (the dead-letter reader).
// A Kafka consumer waits until its topic exists (the service creates it on first use), subscribes
// from the beginning, and prints {"ready": true} once its first fetch is done; a file reader is
// ready at once. Then one JSON line per record:
//   {"record": {topic, partition, offset, key, value: <parsed JSON>, headers}, "effect": bool, "answer": {op, status}}
import { existsSync, openSync, readSync, closeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import kafkajs from "kafkajs";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const topic = arg("topic");
const base = arg("url");
const token = arg("token");
const mode = arg("mode") ?? "ack";
const failTimes = Number(arg("fail-times") ?? 0);
const silentTimes = Number(arg("silent-times") ?? 0);
const onlySuffix = arg("only-suffix");
const subscription = arg("subscription");
const delayMs = Number(arg("delay-ms") ?? 0);
const query = subscription === undefined ? "" : `?subscription=${encodeURIComponent(subscription)}`;
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const deliveries = new Map();
const handled = new Set();

const post = async (path, body) => {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.status;
};

/** One record: the handler (fails the first N deliveries of an id), then ack or reject over HTTP. */
async function onRecord(record) {
  const value = record.value === null ? null : JSON.parse(record.value);
  const id = value?.messageId ?? record.key;
  if (mode === "none") return print({ record: { ...record, value }, effect: false, answer: null });
  if (subscription !== undefined && value?.subscription !== subscription) return print({ record: { ...record, value }, effect: false, answer: null, foreign: true });
  if (delayMs > 0) await sleep(delayMs);
  const spared = id.endsWith("-warm-up") || (onlySuffix !== undefined && !id.endsWith(onlySuffix));
  const n = spared ? Infinity : (deliveries.get(id) ?? 0) + 1;
  deliveries.set(id, n);
  const at = `/rm/v1/messages/${encodeURIComponent(id)}`;
  if (n <= silentTimes) return print({ record: { ...record, value }, effect: false, answer: null });
  if (n <= silentTimes + failTimes) {
    const reason = `handler failed on delivery ${n}`;
    return print({ record: { ...record, value }, effect: false, answer: { op: "reject", status: await post(`${at}/reject${query}`, { reason }) } });
  }
  const effect = !handled.has(id);
  handled.add(id);
  print({ record: { ...record, value }, effect, answer: { op: "ack", status: await post(`${at}/ack${query}`, {}) } });
}

async function fromKafka() {
  const kafka = new kafkajs.Kafka({ brokers: arg("brokers").split(","), clientId: "rm-e2e-consumer", logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  while (!(await admin.listTopics()).includes(topic)) await sleep(100);
  await admin.disconnect();
  // A refused connection crashes a kafkajs consumer at once (it restarts itself), and its new member
  // joins only when the lost member's session ends: 30 s by default, which on a loaded machine
  // outlived the resend schedule of the broker-outage suites (their messages went DEAD). A short
  // session and quick retries are how an owner's consumer rides out a broker restart.
  const consumer = kafka.consumer({
    groupId: arg("group"),
    maxWaitTimeInMs: 200,
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
    retry: { retries: 60, initialRetryTime: 200, maxRetryTime: 1_000 },
  });
  let ready = false;
  consumer.on(consumer.events.FETCH, () => {
    if (!ready) print({ ready: (ready = true) });
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, v?.toString() ?? null]));
      await onRecord({ topic, partition, offset: Number(message.offset), key: message.key?.toString() ?? null, value: message.value?.toString() ?? null, headers });
    },
  });
  process.on("SIGTERM", () => void consumer.disconnect().finally(() => process.exit(0)));
}

/** Tails `<data-dir>/events/<topic>.jsonl`, the embedded runner's topic. */
async function fromFile(path) {
  let stop = false;
  process.on("SIGTERM", () => (stop = true));
  print({ ready: true });
  let position = 0;
  let partial = "";
  const utf8 = new StringDecoder("utf8");
  while (!stop) {
    if (existsSync(path)) {
      const fd = openSync(path, "r");
      const buf = Buffer.alloc(1 << 16);
      let n;
      while ((n = readSync(fd, buf, 0, buf.length, position)) > 0) {
        position += n;
        partial += utf8.write(buf.subarray(0, n));
      }
      closeSync(fd);
      const lines = partial.split("\n");
      partial = lines.pop();
      for (const line of lines.filter((l) => l.trim() !== "")) {
        const r = JSON.parse(line);
        await onRecord({ topic: r.topic, partition: 0, offset: r.offset, key: r.key, value: r.value, headers: r.headers });
      }
    }
    await sleep(100);
  }
  process.exit(0);
}

await (arg("jsonl") !== undefined ? fromFile(arg("jsonl")) : fromKafka());
