import { describe, expect, it, vi } from "vitest";

// What the port hands kafkajs: a stand-in client records the client, producer and send options.
const handed = vi.hoisted(() => ({ client: [] as Record<string, unknown>[], producer: [] as Record<string, unknown>[], send: [] as Record<string, unknown>[] }));
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
        sendBatch: async (options: Record<string, unknown>) => {
          handed.send.push(options);
          return [];
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
      retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2_000 },
    });
    expect(handed.producer).toHaveLength(1);
    expect(handed.producer[0]).toMatchObject({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: { retries: 2 } });
    expect(handed.producer[0]).not.toHaveProperty("acks");
    expect(handed.send).toHaveLength(1);
    expect(handed.send[0]).toMatchObject({ acks: -1, timeout: 10_000 });
  });
});
