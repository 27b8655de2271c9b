import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import { RecordingLogger } from "@msgx/core/fakes";
import { kafkajsLogCreator } from "@msgx/adapters-kafka";

const { logLevel } = kafkajs;

/** One kafkajs log line, as kafkajs hands it to a log creator. */
function log(logger: RecordingLogger, level: number, message: string, extra: Record<string, unknown> = {}): void {
  kafkajsLogCreator(logger)(logLevel.DEBUG)({ namespace: "Producer", level, label: "WARN", log: { timestamp: "2026-12-07T12:00:00.000Z", message, ...extra } });
}

const CONCURRENT = "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing";

describe("kafkajsLogCreator", () => {
  it("logs a CONCURRENT_TRANSACTIONS retry (the response line and the retried send) at debug, with kafkajs' fields", () => {
    const logger = new RecordingLogger();
    log(logger, logLevel.WARN, "Response AddPartitionsToTxn(key: 24, version: 1)", { broker: "127.0.0.1:9092", error: CONCURRENT, correlationId: 9 });
    log(logger, logLevel.WARN, `Failed to send messages: ${CONCURRENT}`, { retryCount: 0, retryTime: 5 });
    expect(logger.at("warn")).toEqual([]);
    expect(logger.at("debug")).toEqual(["kafkajs: Response AddPartitionsToTxn(key: 24, version: 1)", `kafkajs: Failed to send messages: ${CONCURRENT}`]);
    expect(logger.lines[0]!.fields).toMatchObject({ kafkajs: "Producer", broker: "127.0.0.1:9092", error: CONCURRENT });
  });

  it("keeps every other warning and error a warning, and info at info", () => {
    const logger = new RecordingLogger();
    log(logger, logLevel.WARN, "Response Produce(key: 0, version: 7)", { error: "This server is not the leader for that topic-partition" });
    log(logger, logLevel.ERROR, "Connection error: connect ECONNREFUSED 127.0.0.1:9092");
    log(logger, logLevel.INFO, "Producer disconnected");
    expect(logger.at("warn")).toEqual(["kafkajs: Response Produce(key: 0, version: 7)", "kafkajs: Connection error: connect ECONNREFUSED 127.0.0.1:9092"]);
    expect(logger.at("info")).toEqual(["kafkajs: Producer disconnected"]);
  });
});
