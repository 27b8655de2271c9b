// An owner service with no msgx code, as one in another language would be written from
// docs/task-routing.md: a plain kafkajs consumer group on its own owner's topic (topic-per-owner
// mode) and the callback over HTTP. Its "business" is a set of event ids it handled (its dedupe on
// eventId, as a consume log does); a redelivered event is reported again, not handled again.
//
//   node plain-owner.mjs --brokers B --topic T --group G --runner URL --token T [--result-topic R --owner O]
//
// The consumer waits until its topic exists (the runner creates it before its first send), reads it
// from the beginning, and prints {"ready": true} once it has joined; then one JSON line per record:
//   {"record": {topic, partition, key, headers, value: <parsed JSON>}, "handled": bool, "callback": <HTTP status> | null}
// TASK_FINISHED / TASK_CANCELLED get POST <runner>/task/v1/callbacks {taskId, eventId, result: SUCCESS};
// TASK_EXECUTING and TASK_OVERDUE expect no callback. The offset is committed after the callback was answered 2xx.
// With --result-topic, the callback is instead a TaskCallbackMessage record on that topic (seed §9.2;
// key taskId, acks from every in-sync replica), and "callback" is "sent" once the broker took it.
import kafkajs from "kafkajs";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const topic = arg("topic");
const runner = arg("runner");
const token = arg("token");
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const handled = new Set();

const resultTopic = arg("result-topic");
let producer;

async function callback(event) {
  if (resultTopic !== undefined) return publishCallback(event);
  for (;;) {
    try {
      const res = await fetch(new URL("/task/v1/callbacks", runner), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ taskId: event.taskId, eventId: event.eventId, result: "SUCCESS", message: `handled by ${topic}` }),
        signal: AbortSignal.timeout(5_000),
      });
      await res.text();
      // A 4xx is final (the task service refused it for good); anything else is tried again.
      if (res.status < 500) return res.status;
    } catch {
      // The task service is not reachable now: try again.
    }
    await sleep(200);
  }
}

async function publishCallback(event) {
  const value = { schemaVersion: 1, taskId: event.taskId, eventId: event.eventId, result: "SUCCESS", message: `handled by ${topic}`, ownerService: arg("owner") };
  for (;;) {
    try {
      await producer.send({ topic: resultTopic, acks: -1, messages: [{ key: event.taskId, value: JSON.stringify(value), headers: { "msgx-callback-event-id": event.eventId } }] });
      return "sent";
    } catch {
      // The broker is not reachable now: try again.
      await sleep(200);
    }
  }
}

const kafka = new kafkajs.Kafka({ clientId: `plain-owner-${topic}`, brokers: arg("brokers").split(","), connectionTimeout: 3_000, logLevel: kafkajs.logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
while (!(await admin.listTopics()).includes(topic)) await sleep(200);
await admin.disconnect();

if (resultTopic !== undefined) {
  producer = kafka.producer();
  await producer.connect();
}

const consumer = kafka.consumer({ groupId: arg("group") });
await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
consumer.on(consumer.events.GROUP_JOIN, () => print({ ready: true }));
await consumer.run({
  eachMessage: async ({ topic: from, partition, message }) => {
    const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, v === undefined ? null : String(v)]));
    const value = message.value === null ? null : JSON.parse(message.value.toString("utf8"));
    const record = { topic: from, partition, key: message.key?.toString("utf8") ?? null, headers, value };
    const first = value !== null && !handled.has(value.eventId);
    if (first) handled.add(value.eventId);
    const answers = value !== null && (value.eventType === "TASK_FINISHED" || value.eventType === "TASK_CANCELLED");
    print({ record, handled: first, callback: answers ? await callback(value) : null });
  },
});

process.on("SIGTERM", () => {
  void Promise.all([consumer.disconnect(), producer?.disconnect()])
    .catch(() => undefined)
    .then(() => process.exit(0));
});
