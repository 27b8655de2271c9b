import { describe, expect, it, vi } from "vitest";
import type { DeliveryRecord } from "@msgx/core";

// What the port hands kafkajs: a stand-in client records the client, producer and send options.
const handed = vi.hoisted(() => ({
  client: [] as Record<string, unknown>[],
  producer: [] as Record<string, unknown>[],
  send: [] as Record<string, unknown>[],
  /** The next sendBatch leaves one partition it was given out of its answer (what kafkajs 2.2.4 can do). */
  dropOnePartition: false,
}));
type Picker = (args: { topic: string; partitionMetadata: unknown[]; message: unknown }) => number;
const PARTITIONS = [0, 1, 2].map((partitionId) => ({ partitionId, leader: partitionId + 1, replicas: [1, 2, 3], isr: [1, 2, 3], partitionErrorCode: 0 }));
vi.mock("kafkajs", async (importOriginal) => {
  const real = ((await importOriginal()) as { default: Record<string, unknown> }).default;
  class RecordingKafka {
    constructor(config: Record<string, unknown>) {
      handed.client.push(config);
    }
    producer(config: Record<string, unknown>) {
      handed.producer.push(config);
      return {
        connect: async () => undefined,
        disconnect: async () => undefined,
        sendBatch: async (options: { topicMessages: { topic: string; messages: unknown[] }[] }) => {
          handed.send.push(options);
          // Partition as kafkajs does (through the port's partitioner), answer each partition with base offset 0.
          const pick = (config["createPartitioner"] as () => Picker)();
          const answered = new Map<string, { topicName: string; partition: number; errorCode: number; baseOffset: string }>();
          for (const { topic, messages } of options.topicMessages) {
            for (const message of messages) {
              const partition = pick({ topic, partitionMetadata: PARTITIONS, message });
              answered.set(`${topic}/${partition}`, { topicName: topic, partition, errorCode: 0, baseOffset: "0" });
            }
          }
          const answer = [...answered.values()];
          if (handed.dropOnePartition) {
            handed.dropOnePartition = false;
            answer.shift();
          }
          return answer;
        },
      };
    }
  }
  return { default: { ...real, Kafka: RecordingKafka } };
});

const { KafkaDeliveryPort } = await import("@msgx/adapters-kafka");

describe("the producer settings the port gives kafkajs (docs/kafka.md, stated for a three-broker cluster)", () => {
  it("acks=all on every send with the broker's replica wait, idempotent, one request in flight, brief retries, bounded requests", async () => {
    const port = new KafkaDeliveryPort({ brokers: ["127.0.0.1:19092", "127.0.0.1:19192", "127.0.0.1:19292"] });
    await port.send([{ topic: "msg", key: "F1", value: "{}", headers: {} }]);
    await port.disconnect();

    expect(handed.client).toHaveLength(1);
    expect(handed.client[0]).toMatchObject({
      brokers: ["127.0.0.1:19092", "127.0.0.1:19192", "127.0.0.1:19292"],
      connectionTimeout: 3_000,
      requestTimeout: 15_000,
      enforceRequestTimeout: true,
      retry: { retries: 7, initialRetryTime: 5, maxRetryTime: 2_000 },
    });
    expect(handed.producer).toHaveLength(1);
    expect(handed.producer[0]).toMatchObject({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: { retries: 7 } });
    expect(handed.producer[0]).not.toHaveProperty("acks");
    expect(handed.send).toHaveLength(1);
    expect(handed.send[0]).toMatchObject({ acks: -1, timeout: 10_000 });
  });
});

describe("a send kafkajs resolved without every partition's acknowledgement", () => {
  it("fails as an outage (the caller resends it whole) and the next send builds a new producer", async () => {
    const port = new KafkaDeliveryPort({ brokers: ["127.0.0.1:19092"] });
    const records = Array.from({ length: 12 }, (_, i): DeliveryRecord => ({ topic: "msg", key: `F${i}`, value: "{}", headers: {} }));
    const producersBefore = handed.producer.length;
    handed.dropOnePartition = true;
    await expect(port.send(records)).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE", retriable: true, message: expect.stringMatching(/no acknowledgement/) });
    const placements = await port.send(records);
    expect(placements.every((p) => p !== null)).toBe(true);
    expect(new Set(placements.map((p) => p!.partition)).size).toBeGreaterThan(1);
    expect(handed.producer.length - producersBefore).toBe(2);
    await port.disconnect();
  });
});
