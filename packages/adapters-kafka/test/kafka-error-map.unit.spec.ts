import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { classifyKafkaError, mapKafkaError } from "@msgx/adapters-kafka";

// kafkajs is CommonJS and spreads its error classes into its exports: use the default import.
const { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSNonRetriableError, KafkaJSProtocolError, KafkaJSRequestTimeoutError, KafkaJSError } =
  kafkajs as unknown as Record<string, new (...args: unknown[]) => Error>;

const protocol = (type: string, retriable: boolean) =>
  new KafkaJSProtocolError!({ type, code: 0, retriable, message: `broker says ${type}` });

describe("kafka error map", () => {
  it.each([
    ["connection refused", () => new KafkaJSConnectionError!("Connection error: connect ECONNREFUSED 127.0.0.1:1", { code: "ECONNREFUSED" })],
    ["request timeout", () => new KafkaJSRequestTimeoutError!("Request Produce(key: 0, version: 7) timed out", {})],
    ["retries exhausted", () => new KafkaJSNumberOfRetriesExceeded!(protocol("NOT_ENOUGH_REPLICAS", true), { retryCount: 2, retryTime: 400 })],
    ["retriable protocol error", () => protocol("LEADER_NOT_AVAILABLE", true)],
    ["producer disconnected", () => new KafkaJSError!("The producer is disconnected")],
    ["node socket error", () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })],
    ["kafkajs internal 'Broker not connected' (broker accepts but never answers)", () => new Error("Broker not connected")],
    ["lost producer state", () => new KafkaJSNonRetriableError!(protocol("OUT_OF_ORDER_SEQUENCE_NUMBER", false), { cause: protocol("OUT_OF_ORDER_SEQUENCE_NUMBER", false) })],
  ])("%s → DEPENDENCY_UNAVAILABLE", (_name, make) => {
    const e = mapKafkaError(make(), "send to msg");
    expect(e).toBeInstanceOf(MsgxError);
    expect(e.kind).toBe("DEPENDENCY_UNAVAILABLE");
    expect(e.retriable).toBe(true);
    expect(e.message).toContain("send to msg");
  });

  it.each([
    ["message too large", () => protocol("MESSAGE_TOO_LARGE", false)],
    [
      "message too large wrapped by the retrier",
      () => {
        const inner = protocol("MESSAGE_TOO_LARGE", false);
        return new KafkaJSNonRetriableError!(inner, { cause: inner });
      },
    ],
    ["invalid record", () => protocol("INVALID_RECORD", false)],
    ["invalid message (kafkajs validation)", () => new KafkaJSNonRetriableError!('Invalid message without value for topic "msg"')],
    ["a plain bug", () => new TypeError("x is not a function")],
  ])("%s → INFRA, not retriable", (_name, make) => {
    const e = mapKafkaError(make(), "send to msg");
    expect(e.kind).toBe("INFRA");
    expect(e.retriable).toBe(false);
    expect(classifyKafkaError(make())).toBe("record");
  });

  it("treats any failure while connecting as an outage", () => {
    expect(mapKafkaError(new TypeError("odd"), "connect", "connect").kind).toBe("DEPENDENCY_UNAVAILABLE");
  });

  it("keeps the driver error as the cause and passes a MsgxError through", () => {
    const original = protocol("MESSAGE_TOO_LARGE", false);
    expect(mapKafkaError(original, "send").cause).toBe(original);
    expect(mapKafkaError(original, "send").message).toContain("MESSAGE_TOO_LARGE");
    const own = new MsgxError("CONFIG", "x");
    expect(mapKafkaError(own, "send")).toBe(own);
  });
});
