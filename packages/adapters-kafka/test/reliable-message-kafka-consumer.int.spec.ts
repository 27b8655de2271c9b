/**
 * The reliable-message Kafka consumer on a real broker (issue 20): the consumer helper's retry
 * budget runs inside the partition (each try its own transaction, the wait heartbeating the
 * group), a message whose handler fails every try is rejected and its offset committed so the
 * records behind it are consumed, and `stop` during a wait leaves that record uncommitted.
 */
import { Kafka, logLevel, type Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReliableMessageConsumer } from "@msgx/reliable";
import { systemClock } from "@msgx/core";
import { InMemoryConsumeLog, sampleReliableMessage, type InMemoryConsumerTx } from "@msgx/reliable/testing";
import { ReliableMessageKafkaConsumer } from "@msgx/adapters-kafka/reliable";
import { envelopeOf } from "../../reliable/src/message-envelope.js";
import { kafkaAvailability } from "./kafka-available.js";
import { createTopics, uniqueTopic } from "./kafka-test-kit.js";

const kafka = await kafkaAvailability("@msgx/adapters-kafka reliable-message consumer integration suite");

const QUEUE = "accounting";
const envelope = (id: string): string =>
  JSON.stringify(envelopeOf(sampleReliableMessage(id, { status: "SENDING", sendCount: 1, lastSentAt: 5, consumerQueue: QUEUE })));

/** Resolves once `check` holds, polling; fails with `what` after `timeoutMs` (generous: a loaded machine is slow, never wrong). */
async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A consuming service: the helper over an in-memory consume log, recording what it did. */
function service(failing: ReadonlySet<string>, budget: { maxAttempts: number; retryWaitsMs: readonly number[] }) {
  const tries: string[] = [];
  const booked: string[] = [];
  const acks: string[] = [];
  const rejects: { id: string; reason: string }[] = [];
  const helper = new ReliableMessageConsumer<InMemoryConsumerTx>({
    log: new InMemoryConsumeLog(),
    clock: systemClock,
    queue: QUEUE,
    ...budget,
    handler: async (m, tx) => {
      tries.push(m.messageId);
      tx.stage(() => booked.push(m.messageId));
      if (failing.has(m.messageId)) throw new Error(`cannot book ${m.messageId}`);
    },
    acknowledge: async (id) => void acks.push(id),
    reject: async (id, reason) => void rejects.push({ id, reason }),
  });
  return { helper, tries, booked, acks, rejects };
}

describe.skipIf(!kafka.available)("ReliableMessageKafkaConsumer on a real broker", () => {
  const client = new Kafka({ clientId: "msgx-it-rm-consumer", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING });
  const admin = client.admin();
  const producer: Producer = client.producer();
  const topics: string[] = [];
  const running: ReliableMessageKafkaConsumer[] = [];

  const newTopic = async (): Promise<string> => {
    const t = uniqueTopic("rmq");
    topics.push(t);
    await createTopics(admin, [t], 1);
    return t;
  };
  const send = (topic: string, ids: readonly string[]) => producer.send({ topic, messages: ids.map((id) => ({ key: id, value: envelope(id) })) });
  const start = async (topic: string, groupId: string, helper: ReliableMessageConsumer<InMemoryConsumerTx>) => {
    const c = new ReliableMessageKafkaConsumer({ kafka: client, groupId, topic, consumer: helper, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 });
    running.push(c);
    await c.start();
    return c;
  };

  beforeAll(async () => {
    await admin.connect();
    await producer.connect();
  });

  afterAll(async () => {
    for (const c of running) await c.stop().catch(() => undefined);
    await producer.disconnect();
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  });

  it("a handler failing every try is retried within its budget, rejected, and its offset committed: the partition moves on", async () => {
    const topic = await newTopic();
    const groupId = `${topic}-g`;
    await send(topic, ["POISON", "GOOD-1"]);
    const s = service(new Set(["POISON"]), { maxAttempts: 3, retryWaitsMs: [100, 300] });
    const first = await start(topic, groupId, s.helper);
    await until(() => s.acks.includes("GOOD-1"), "GOOD-1 acknowledged behind the rejected POISON");
    expect(s.tries).toEqual(["POISON", "POISON", "POISON", "GOOD-1"]);
    expect(s.rejects).toEqual([{ id: "POISON", reason: "handler failed 3 times; last: Error: cannot book POISON" }]);
    expect([s.booked, s.acks]).toEqual([["GOOD-1"], ["GOOD-1"]]);
    await first.stop();

    // The same group again: both offsets were committed, so only the new record comes.
    const again = service(new Set(), { maxAttempts: 3, retryWaitsMs: [100, 300] });
    await start(topic, groupId, again.helper);
    await send(topic, ["GOOD-2"]);
    await until(() => again.acks.includes("GOOD-2"), "GOOD-2 acknowledged after the restart");
    expect([again.tries, again.rejects]).toEqual([["GOOD-2"], []]);
  });

  it("stop during the wait for the next try commits nothing: the group's next member gets the record again", async () => {
    const topic = await newTopic();
    const groupId = `${topic}-g`;
    await send(topic, ["SLOW"]);
    const s = service(new Set(["SLOW"]), { maxAttempts: 3, retryWaitsMs: [120_000] });
    const first = await start(topic, groupId, s.helper);
    await until(() => s.tries.length === 1, "the first try of SLOW");
    const t0 = Date.now();
    await first.stop();
    // Far inside the 120 s wait: the stop ended it instead of sitting it out.
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect([s.tries, s.rejects, s.acks]).toEqual([["SLOW"], [], []]);

    const fixed = service(new Set(), { maxAttempts: 3, retryWaitsMs: [100] });
    await start(topic, groupId, fixed.helper);
    await until(() => fixed.acks.includes("SLOW"), "SLOW redelivered to the next member and acknowledged");
    expect([fixed.tries, fixed.booked]).toEqual([["SLOW"], ["SLOW"]]);
  });
});
