import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryPlacement, DeliveryRecord } from "@msgx/core";
import { MsgxError } from "@msgx/core";
import { describeDeliveryPortContract } from "@msgx/core/testing";
import { KafkaDeliveryPort, ensureTopics, readEventHeaders } from "@msgx/adapters-kafka";
import { kafkaAvailability } from "./kafka-available.js";
import { appendedCount, consume, createTopics, eventHeadersOf, uniqueTopic } from "./kafka-test-kit.js";
import { JAVA_MURMUR2_VECTORS, javaPartition } from "./murmur2.js";

const kafka = await kafkaAvailability("@msgx/adapters-kafka KafkaDeliveryPort integration suite");

// The contract's topics are deleted after the whole file (this top-level hook runs last), not per
// test: right after a deletion the broker can answer a new topic's first requests with
// UNKNOWN_TOPIC_OR_PARTITION for a while, failing the next test's set-up.
const contractTopics: string[] = [];
afterAll(async () => {
  if (!kafka.available || contractTopics.length === 0) return;
  const admin = new Kafka({ clientId: "msgx-it-contract-cleanup", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: contractTopics }).catch(() => undefined);
  await admin.disconnect();
});

describe.skipIf(!kafka.available)("on a real broker (3 partitions per topic)", () => {
  const client = new Kafka({ clientId: "msgx-it-contract", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING });
  const admin = client.admin();
  const created = contractTopics;
  beforeAll(() => admin.connect());
  afterAll(() => admin.disconnect());

  describeDeliveryPortContract("KafkaDeliveryPort", async () => {
    const topics = [uniqueTopic("placed-a"), uniqueTopic("placed-b")] as const;
    created.push(...topics);
    await createTopics(admin, topics, 3);
    const port = new KafkaDeliveryPort({ brokers: kafka.brokers, clientId: "msgx-it-contract-port" });
    const fencedPorts: KafkaDeliveryPort[] = [];
    return {
      port,
      topics,
      readBack: async (wanted, count) =>
        (await consume(client, wanted, count)).map((m) => ({
          topic: m.topic,
          key: m.key ?? "",
          value: m.value,
          headers: Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(v)])),
          partition: m.partition,
          offset: Number(m.offset),
        })),
      fenced: (fencing) => {
        const fenced = new KafkaDeliveryPort({ brokers: kafka.brokers, clientId: "msgx-it-contract-fenced", fencing });
        fencedPorts.push(fenced);
        return fenced;
      },
      close: async () => {
        await Promise.all([port, ...fencedPorts].map((p) => p.disconnect()));
      },
    };
  }, { fencing: true });
});

describe.skipIf(!kafka.available)("KafkaDeliveryPort on a real broker", () => {
  const client = new Kafka({ clientId: "msgx-it", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING });
  const admin = client.admin();
  const topics: string[] = [];
  let port: KafkaDeliveryPort;

  const topic = (prefix: string) => {
    const t = uniqueTopic(prefix);
    topics.push(t);
    return t;
  };
  const record = (t: string, key: string, value: string | null, headers: Record<string, string> = {}): DeliveryRecord => ({ topic: t, key, value, headers });

  beforeAll(async () => {
    await admin.connect();
    port = new KafkaDeliveryPort({ brokers: kafka.brokers, clientId: "msgx-it-port" });
    await port.connect();
  });

  afterAll(async () => {
    await port?.disconnect();
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  });

  it("ensureTopics creates msg (delete) and schd (compact) once, and refuses a schd topic without compaction", async () => {
    const msg = topic("msg");
    const schd = topic("schd");
    expect(await ensureTopics(admin, { msgTopic: msg, schdTopic: schd, partitions: 6 })).toEqual({ created: [msg, schd], existing: [] });
    expect(await ensureTopics(admin, { msgTopic: msg, schdTopic: schd, partitions: 6 })).toEqual({ created: [], existing: [msg, schd] });
    const meta = await admin.fetchTopicMetadata({ topics: [msg, schd] });
    expect(meta.topics.map((t) => t.partitions.length)).toEqual([6, 6]);

    const plain = topic("plain");
    await createTopics(admin, [plain], 1);
    const refused = await ensureTopics(admin, { msgTopic: topic("msg2"), schdTopic: plain, partitions: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MsgxError);
    expect((refused as MsgxError).kind).toBe("CONFIG");
  });

  it("puts each key on the partition Java's murmur2 picks (6 partitions)", async () => {
    const t = topic("murmur2");
    await createTopics(admin, [t], 6);
    await port.send(JAVA_MURMUR2_VECTORS.map(([key]) => record(t, key, JSON.stringify({ key }))));
    const got = await consume(client, [t], JAVA_MURMUR2_VECTORS.length);
    expect(got).toHaveLength(JAVA_MURMUR2_VECTORS.length);
    for (const [key, , javaSays] of JAVA_MURMUR2_VECTORS) {
      const m = got.find((g) => g.key === key);
      expect(m?.partition, `key ${JSON.stringify(key)}`).toBe(javaSays);
      expect(javaPartition(key, 6)).toBe(javaSays);
    }
  });

  it("round-trips headers and delivers a tombstone as a null value", async () => {
    const msg = topic("hdr-msg");
    const schd = topic("hdr-schd");
    await ensureTopics(admin, { msgTopic: msg, schdTopic: schd, partitions: 3 });
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const upsert = eventHeadersOf({ eventId: 101, eventType: "UPSERT", stateVersion: 7, sourceMsgId: 5001, traceparent });
    const tomb = eventHeadersOf({ eventId: 102, eventType: "TOMBSTONE", stateVersion: 8, sourceMsgId: 5002 });
    // One call, two topics: grouped per topic, order kept within each.
    await port.send([
      record(schd, "FL-1", '{"flid":"FL-1","v":7}', upsert),
      record(msg, "FL-1", '{"flid":"FL-1"}', upsert),
      record(schd, "FL-1", null, tomb),
    ]);
    const got = await consume(client, [msg, schd], 3);
    const onSchd = got.filter((g) => g.topic === schd);
    expect(onSchd.map((g) => g.value)).toEqual(['{"flid":"FL-1","v":7}', null]);
    expect(readEventHeaders(onSchd[0]?.headers)).toEqual({ eventId: "101", eventType: "UPSERT", stateVersion: 7, sourceMsgId: "5001", traceparent });
    expect(readEventHeaders(onSchd[1]?.headers)).toEqual({ eventId: "102", eventType: "TOMBSTONE", stateVersion: 8, sourceMsgId: "5002" });
    const onMsg = got.filter((g) => g.topic === msg);
    expect(onMsg).toHaveLength(1);
    expect(Object.keys(onMsg[0]?.headers ?? {}).sort()).toEqual(Object.keys(upsert).sort());
  });

  it("keeps per-key order over 10,000 events sent in concurrent calls of mixed sizes", async () => {
    const t = topic("order");
    await createTopics(admin, [t], 6);
    const keys = Array.from({ length: 40 }, (_, i) => `FL-${i}-${(i * 104729).toString(36)}`);
    const version = new Map<string, number>();
    const events: DeliveryRecord[] = [];
    for (let i = 0; i < 10_000; i++) {
      const key = keys[(i * 7 + (i >> 5)) % keys.length]!;
      const v = (version.get(key) ?? 0) + 1;
      version.set(key, v);
      events.push(record(t, key, JSON.stringify({ key, v }), eventHeadersOf({ eventId: i + 1, eventType: "UPSERT", stateVersion: v, sourceMsgId: i })));
    }
    const calls: DeliveryRecord[][] = [];
    for (let at = 0, n = 1; at < events.length; at += n, n = (n * 37 + 11) % 500 || 1) calls.push(events.slice(at, at + n));

    const t0 = performance.now();
    const placements = (await Promise.all(calls.map((c) => port.send(c)))).flat(); // the port serializes them in call order
    const sentMs = performance.now() - t0;
    const got = await consume(client, [t], events.length);
    const totalMs = performance.now() - t0;
    console.info(`10,000 events in ${calls.length} calls: sent in ${Math.round(sentMs)} ms, consumed by ${Math.round(totalMs)} ms`);

    expect(got).toHaveLength(events.length);
    expect(await appendedCount(admin, t)).toBe(events.length); // idempotent: nothing appended twice
    const last = new Map<string, number>();
    for (const m of got) {
      const h = readEventHeaders(m.headers);
      expect(h).toBeDefined();
      const previous = last.get(m.key!) ?? 0;
      expect(h!.stateVersion, `key ${m.key}`).toBe(previous + 1);
      last.set(m.key!, h!.stateVersion);
      expect(m.partition).toBe(javaPartition(m.key!, 6));
    }
    expect(last).toEqual(version);

    // Every placement names the record the consumer read there: same event, same key.
    const consumedAt = new Map(got.map((m) => [`${m.partition}/${m.offset}`, m]));
    expect(placements).toHaveLength(events.length);
    const wrong = events.filter((e, i) => {
      const p: DeliveryPlacement | null | undefined = placements[i];
      const m = p ? consumedAt.get(`${p.partition}/${p.offset}`) : undefined;
      return m === undefined || m.key !== e.key || readEventHeaders(m.headers)?.eventId !== e.headers["msgx-event-id"];
    });
    expect(wrong.map((e) => e.headers["msgx-event-id"]).slice(0, 5)).toEqual([]);
  });

  it("refuses a record the broker can never accept as INFRA (not retriable), then keeps working", async () => {
    const t = topic("too-large");
    await createTopics(admin, [t], 1);
    const huge = "x".repeat(2 * 1024 * 1024);
    const e = await port.send([record(t, "k", huge)]).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MsgxError);
    expect((e as MsgxError).kind).toBe("INFRA");
    expect((e as MsgxError).retriable).toBe(false);
    expect((e as MsgxError).message).toMatch(/MESSAGE_TOO_LARGE|larger than the max/);

    await port.send([record(t, "k", "small")]); // a fresh producer after the failure
    expect(await appendedCount(admin, t)).toBe(1);
  });

  it("reports a topic that does not exist as DEPENDENCY_UNAVAILABLE (auto-creation is off), quickly", async () => {
    const t0 = performance.now();
    const e = await port.send([record(uniqueTopic("missing"), "k", "v")]).catch((err: unknown) => err);
    expect((e as MsgxError).kind).toBe("DEPENDENCY_UNAVAILABLE");
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});
