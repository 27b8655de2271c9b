import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import { MsgDispatcher, silentLogger, systemClock, type OutboxEventDraft } from "@msgx/core";
import { InMemoryOutboxStore, InMemoryPipelineStore } from "@msgx/core/testing";
import { gateControl, startService, stopService } from "../../../bench/fault/services.js";
import { KafkaDeliveryPort } from "../src/index.js";
import { kafkaAvailability } from "./kafka-available.js";
import { createTopics } from "./kafka-test-kit.js";

const EVENTS = 10_000;
const KEYS = 100;
const SUITE = "relay through a broker restart";
const kafka = await kafkaAvailability(SUITE);
// The suite stops and starts the broker: only this checkout's scripts/kafka broker is its to stop.
const control = kafka.available ? await gateControl(["kafka"], SUITE) : { available: false };

describe.skipIf(!control.available)("the batched, pipelined relay through a broker restart", () => {
  it(`delivers ${EVENTS} events at least once, in per-key order, none DEAD, duplicates only as repeated event ids`, async () => {
    const topic = `relay_restart_${process.pid}_${Date.now() % 100_000}`;
    const admin = new kafkajs.Kafka({ brokers: [...kafka.brokers], logLevel: kafkajs.logLevel.NOTHING }).admin();
    await admin.connect();
    await createTopics(admin, [topic], 6);
    await admin.disconnect();

    const store = new InMemoryPipelineStore(systemClock);
    const drafts: OutboxEventDraft[] = Array.from({ length: EVENTS }, (_, i) => ({
      target: "KAFKA:msg",
      partitionKey: `F${i % KEYS}`,
      eventType: "UPSERT",
      stateVersion: Math.floor(i / KEYS) + 1,
      payload: { i },
      sourceMsgId: i + 1,
    }));
    await store.transaction((tx) => tx.applyRun({ records: [], bindings: [], flights: [], events: drafts, backfill: [] }));
    const outbox = new InMemoryOutboxStore(store);
    const delivery = new KafkaDeliveryPort({ brokers: [...kafka.brokers], logger: silentLogger });
    const dispatcher = new MsgDispatcher(
      { outbox, delivery, clock: systemClock, logger: silentLogger },
      // Pipelined, as the runner runs it: reads and marks beside the sends.
      { topics: { "KAFKA:msg": topic }, batchSize: 200, breaker: { initialMs: 200, maxMs: 2_000 }, pipelined: true },
    );

    const steps = { sent: 0, outage: 0, failed: 0, dead: 0 };
    let restarted = false;
    const started = Date.now();
    while (Date.now() - started < 240_000) {
      const step = await dispatcher.step();
      if (step.did === "sent") steps.sent += step.eventIds.length;
      else if (step.did === "outage") steps.outage += 1;
      else if (step.did === "failed") steps.failed += 1;
      else if (step.did === "dead") steps.dead += 1;
      if (!restarted && steps.sent >= EVENTS * 0.3) {
        restarted = true;
        await stopService("kafka");
        // The relay keeps stepping against the dead broker for a while before it comes back.
        const downUntil = Date.now() + 3_000;
        while (Date.now() < downUntil) {
          const s = await dispatcher.step();
          if (s.did === "outage") steps.outage += 1;
          await new Promise((r) => setTimeout(r, Math.max(0, (s.next ?? Date.now()) - Date.now())));
        }
        await startService("kafka");
      }
      if (step.did === "idle") break;
      if (step.did !== "sent") await new Promise((r) => setTimeout(r, Math.max(0, (step.next ?? Date.now()) - Date.now())));
    }
    await dispatcher.settle();
    await delivery.disconnect();
    expect(restarted).toBe(true);
    expect(outbox.events.filter((e) => e.status === "DEAD")).toEqual([]);
    expect(outbox.events.every((e) => e.status === "SENT" && e.attempts === 0)).toBe(true);

    // Read everything back with a real consumer.
    const seen: { key: string; eventId: number }[] = [];
    const consumer = new kafkajs.Kafka({ brokers: [...kafka.brokers], logLevel: kafkajs.logLevel.NOTHING }).consumer({ groupId: `g_${topic}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push({ key: message.key!.toString(), eventId: Number(message.headers!["msgx-event-id"]!.toString()) }) });
    const deadline = Date.now() + 60_000;
    while (new Set(seen.map((s) => s.eventId)).size < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    await consumer.disconnect();

    const ids = seen.map((s) => s.eventId);
    const unique = new Set(ids);
    expect(unique.size).toBe(EVENTS);
    // Per key, first deliveries come in EVENT_ID order; a duplicate repeats an id already seen.
    const firstOrder = new Map<string, number[]>();
    const delivered = new Set<number>();
    for (const s of seen) {
      if (delivered.has(s.eventId)) continue;
      delivered.add(s.eventId);
      firstOrder.set(s.key, [...(firstOrder.get(s.key) ?? []), s.eventId]);
    }
    for (const [key, order] of firstOrder) expect(order, `key ${key}`).toEqual([...order].sort((a, b) => a - b));
    console.info(`[relay restart] ${EVENTS} events, ${ids.length} records read, ${ids.length - unique.size} duplicates (repeated ids), ${steps.outage} outage steps, 0 DEAD`);
  }, 300_000);
});
