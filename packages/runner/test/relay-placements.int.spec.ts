import { randomBytes } from "node:crypto";
import kafkajs from "kafkajs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KafkaDeliveryPort } from "@msgx/adapters-kafka";
import { createPgStores, type PgStores } from "@msgx/adapters-pg";
import { emptyRunDecision, EventType, MsgDispatcher, silentLogger, systemClock, Target, type OutboxEventDraft } from "@msgx/core";
import { createTopics } from "../../adapters-kafka/test/kafka-test-kit.js";
import { gatePgAndKafka } from "./runner-process.js";

const SUITE = "relay placements (PostgreSQL + Kafka)";
const PG_URL = process.env["MSGX_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const client = new pg.Client({ connectionString: PG_URL });
const available = await gatePgAndKafka(SUITE, client, BROKERS);

describe.skipIf(!available)("the relay records where Kafka put each event", () => {
  const run = randomBytes(4).toString("hex");
  const schema = `msgx_t_placed_${run}`;
  const topic = `msgx-it-placed-${run}`;
  const kafka = new kafkajs.Kafka({ brokers: BROKERS.split(","), logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  let stores: PgStores;

  beforeAll(async () => {
    await admin.connect();
    await createTopics(admin, [topic], 3);
    stores = await createPgStores({ connectionString: PG_URL, schema, max: 4 });
  });

  afterAll(async () => {
    await stores?.close();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await client.end();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it("every SENT msg_event row names the partition and offset of its own record on the topic", async () => {
    const events: OutboxEventDraft[] = Array.from({ length: 60 }, (_, i) => ({
      target: Target.MSG,
      partitionKey: `F${i % 7}`,
      eventType: EventType.UPSERT,
      stateVersion: Math.floor(i / 7) + 1,
      payload: { i },
      sourceMsgId: i + 1,
    }));
    await stores.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, events }));
    const delivery = new KafkaDeliveryPort({ brokers: BROKERS.split(","), clientId: `msgx-it-placed-${run}` });
    // Pipelined with small batches, as the runner runs it: marks land beside the next sends.
    const dispatcher = new MsgDispatcher(
      { outbox: stores.outbox, delivery, clock: systemClock, logger: silentLogger },
      { topics: { [Target.MSG]: topic }, batchSize: 8, pipelined: true },
    );
    try {
      for (let steps = 0; steps < 100; steps++) {
        const step = await dispatcher.step();
        expect(step.did === "sent" || step.did === "idle", JSON.stringify(step)).toBe(true);
        if (step.did === "idle") break;
      }
      await dispatcher.settle();
    } finally {
      await delivery.disconnect();
    }

    const rows = await stores.outbox.get(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(rows).toHaveLength(events.length);
    expect(rows.every((r) => r.status === "SENT" && r.placement !== null && r.placement !== undefined)).toBe(true);

    const held = new Map<string, { key: string; eventId: string }>();
    const consumer = kafka.consumer({ groupId: `msgx-it-placed-${run}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`read ${held.size} of ${events.length} records`)), 40_000);
        void consumer
          .run({
            eachMessage: async ({ partition, message }) => {
              held.set(`${partition}/${message.offset}`, { key: message.key!.toString(), eventId: String(message.headers?.["msgx-event-id"]) });
              if (held.size >= events.length) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    const mismatched = rows.filter((r) => {
      const record = held.get(`${r.placement!.partition}/${r.placement!.offset}`);
      return record?.key !== r.partitionKey || record.eventId !== String(r.eventId);
    });
    expect(mismatched.map((r) => r.eventId)).toEqual([]);
    expect(new Set(rows.map((r) => r.placement!.partition)).size).toBeGreaterThan(1);
  });
});
