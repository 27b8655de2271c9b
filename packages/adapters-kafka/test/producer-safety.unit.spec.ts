import { Partitioners } from "kafkajs";
import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { KafkaDeliveryPort, assertSafeProducerConfig } from "@msgx/adapters-kafka";

const safe = { acks: -1, idempotent: true, maxInFlightRequests: 1, retry: { retries: 2 }, createPartitioner: Partitioners.DefaultPartitioner };

const refusal = (f: () => unknown): MsgxError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MsgxError);
    return e as MsgxError;
  }
  throw new Error("expected a refusal");
};

describe("assertSafeProducerConfig", () => {
  it("accepts acks all in its spellings with idempotence and one request in flight", () => {
    for (const acks of [-1, "-1", "all", "ALL"]) expect(() => assertSafeProducerConfig({ ...safe, acks })).not.toThrow();
  });

  it.each([
    ["acks 1", { acks: 1 }, /acks must be all/],
    ["acks 0", { acks: 0 }, /acks must be all/],
    ["acks unset", { acks: undefined }, /acks must be all/],
    ["idempotence off", { idempotent: false }, /idempotent must be true/],
    ["idempotence unset", { idempotent: undefined }, /idempotent must be true/],
    ["5 requests in flight", { maxInFlightRequests: 5 }, /maxInFlightRequests must be 1/],
    ["in-flight unset (unlimited in kafkajs)", { maxInFlightRequests: undefined }, /maxInFlightRequests must be 1/],
    ["no retries", { retry: { retries: 0 } }, /retry.retries must be an integer >= 1/],
    ["legacy partitioner", { createPartitioner: Partitioners.LegacyPartitioner }, /murmur2/],
  ])("refuses %s with a CONFIG error", (_name, override, message) => {
    const e = refusal(() => assertSafeProducerConfig({ ...safe, ...override }));
    expect(e.kind).toBe("CONFIG");
    expect(e.retriable).toBe(false);
    expect(e.message).toMatch(message);
  });

  it("reports every violation at once", () => {
    const e = refusal(() => assertSafeProducerConfig({ acks: 1, idempotent: false, maxInFlightRequests: 2 }));
    expect(e.message).toMatch(/acks.*idempotent.*maxInFlightRequests/);
  });

  it("is applied by the port to the merged config: overrides cannot switch a guarantee off", () => {
    const brokers = ["127.0.0.1:1"];
    for (const producer of [{ acks: 1 }, { acks: "1" }, { idempotent: false }, { maxInFlightRequests: 5 }, { retry: { retries: 0 } }]) {
      expect(refusal(() => new KafkaDeliveryPort({ brokers, producer })).kind).toBe("CONFIG");
    }
    const port = new KafkaDeliveryPort({ brokers, producer: { acks: "all", retry: { retries: 4 } } });
    expect(port.settings).toMatchObject({ acks: -1, idempotent: true, maxInFlightRequests: 1, retries: 4 });
  });

  it("refuses a port without brokers", () => {
    expect(refusal(() => new KafkaDeliveryPort({ brokers: [] })).kind).toBe("CONFIG");
  });
});
