import type { Message, RecordMetadata } from "kafkajs";
import { describe, expect, it } from "vitest";
import { recordingPartitioner, recordPlacements, type SentMessage } from "../src/record-placements.js";

const ack = (topicName: string, partition: number, baseOffset: string, errorCode = 0): RecordMetadata => ({ topicName, partition, errorCode, baseOffset });

describe("recordPlacements", () => {
  const sent = (...spec: [topic: string, partition: number | undefined][]) => {
    const partitionOf = new WeakMap<Message, number>();
    const messages = spec.map(([topic, partition], i): SentMessage => {
      const message: Message = { key: `k${i}`, value: String(i) };
      if (partition !== undefined) partitionOf.set(message, partition);
      return { topic, message };
    });
    return { messages, partitionOf };
  };

  it("numbers each partition's records from its batch's base offset, in call order, across topics", () => {
    const { messages, partitionOf } = sent(["a", 1], ["b", 0], ["a", 2], ["a", 1], ["b", 0], ["a", 1]);
    const placements = recordPlacements(messages, partitionOf, [ack("a", 1, "40"), ack("a", 2, "7"), ack("b", 0, "5000000000")]);
    expect(placements).toEqual([
      { partition: 1, offset: 40 },
      { partition: 0, offset: 5_000_000_000 },
      { partition: 2, offset: 7 },
      { partition: 1, offset: 41 },
      { partition: 0, offset: 5_000_000_001 },
      { partition: 1, offset: 42 },
    ]);
  });

  it("null where the partition or the partition's acknowledgement is unknown", () => {
    const { messages, partitionOf } = sent(["a", undefined], ["a", 3], ["a", 4], ["a", 5]);
    const placements = recordPlacements(messages, partitionOf, [ack("a", 4, "-1"), ack("a", 5, "9", 6), { topicName: "a", partition: 3, errorCode: 0, offset: "12" }]);
    // No partition; a v0–v2 answer's `offset`; no base offset (-1); an error code.
    expect(placements).toEqual([null, { partition: 3, offset: 12 }, null, null]);
  });
});

describe("recordingPartitioner", () => {
  it("keeps the inner partitioner's choice and remembers it per message", () => {
    const partitionOf = new WeakMap<Message, number>();
    const pick = recordingPartitioner(() => ({ message }) => Number(message.key) % 3, partitionOf)();
    const m: Message = { key: "7", value: "v" };
    expect(pick({ topic: "t", partitionMetadata: [], message: m })).toBe(1);
    expect(partitionOf.get(m)).toBe(1);
  });
});
