/**
 * `cacheTransactionCoordinators` on the installed kafkajs and a real broker: the FindCoordinator
 * requests a transactional producer sends, counted from kafkajs' own request events, with and
 * without the cache; the cache's expiry; and fencing unchanged by it (a newer producer's claim
 * of the id refuses the older producer's next transaction).
 */
import { randomBytes } from "node:crypto";
import { Kafka, logLevel, type Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheTransactionCoordinators } from "../src/transaction-coordinator-cache.js";
import { kafkaAvailability } from "./kafka-available.js";
import { createTopics, uniqueTopic } from "./kafka-test-kit.js";

const kafka = await kafkaAvailability("@msgx/adapters-kafka transaction coordinator cache suite");

describe.skipIf(!kafka.available)("the transaction coordinator cache, on a real broker", () => {
  const topic = uniqueTopic("coordinator");
  const admin = new Kafka({ clientId: "msgx-it-coordinator-admin", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  const producers: Producer[] = [];
  beforeAll(async () => {
    await admin.connect();
    await createTopics(admin, [topic], 3);
  });
  afterAll(async () => {
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  /** A connected transactional producer of a client (cached or not) and the FindCoordinator requests it sent so far. */
  async function transactional(transactionalId: string, ttlMs?: number): Promise<{ producer: Producer; lookups: () => number }> {
    const client = new Kafka({ clientId: "msgx-it-coordinator", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING });
    if (ttlMs !== undefined) expect(cacheTransactionCoordinators(client, ttlMs)).toBe(true);
    const producer = client.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    producers.push(producer);
    let lookups = 0;
    // kafkajs names FindCoordinator by its old name.
    producer.on(producer.events.REQUEST, (e: { payload: { apiName: string } }) => {
      if (e.payload.apiName === "GroupCoordinator") lookups += 1;
    });
    await producer.connect();
    return { producer, lookups: () => lookups };
  }

  async function sendTransactions(producer: Producer, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const tx = await producer.transaction();
      await tx.send({ topic, acks: -1, messages: [{ key: `k${i}`, value: `v${i}` }] });
      await tx.commit();
    }
  }

  const id = (name: string) => `msgx-it-coordinator-${name}-${randomBytes(3).toString("hex")}`;

  it("looks the coordinator up once for many transactions, where kafkajs alone asks twice in each", async () => {
    const plain = await transactional(id("plain"));
    await sendTransactions(plain.producer, 10);
    expect(plain.lookups()).toBeGreaterThanOrEqual(20);

    const cached = await transactional(id("cached"), 60_000);
    await sendTransactions(cached.producer, 10);
    expect(cached.lookups()).toBe(1);
  });

  it("looks it up again once what it found has expired", async () => {
    const expiring = await transactional(id("expiring"), 0);
    await sendTransactions(expiring.producer, 5);
    expect(expiring.lookups()).toBeGreaterThanOrEqual(10);
  });

  it("leaves fencing to the broker: a newer producer's claim of the id refuses the older one's next transaction", async () => {
    const shared = id("fenced");
    const older = await transactional(shared, 60_000);
    await sendTransactions(older.producer, 2);
    const newer = await transactional(shared, 60_000);
    await sendTransactions(newer.producer, 1);
    await expect(sendTransactions(older.producer, 1)).rejects.toThrow(/fenced|epoch|transactional/i);
  });
});
