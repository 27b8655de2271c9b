import { Partitioners, type PartitionMetadata } from "kafkajs";
import { describe, expect, it } from "vitest";
import { JAVA_MURMUR2_VECTORS, javaPartition, murmur2 } from "./murmur2.js";

const sixPartitions: PartitionMetadata[] = Array.from({ length: 6 }, (_, partitionId) => ({
  partitionErrorCode: 0,
  partitionId,
  leader: 1,
  replicas: [1],
  isr: [1],
}));

describe("keyed partitioning (Java murmur2)", () => {
  it("the independent murmur2 reproduces the Java client's hashes", () => {
    for (const [key, hash] of JAVA_MURMUR2_VECTORS) expect(murmur2(Buffer.from(key, "utf8")), key).toBe(hash);
  });

  it("kafkajs DefaultPartitioner picks the Java partition for every known key (6 partitions)", () => {
    const partition = Partitioners.DefaultPartitioner();
    for (const [key, , expected] of JAVA_MURMUR2_VECTORS) {
      expect(partition({ topic: "t", partitionMetadata: sixPartitions, message: { key, value: "v" } }), key).toBe(expected);
      expect(javaPartition(key, 6), key).toBe(expected);
    }
  });

  it("agrees with the independent murmur2 on many generated keys", () => {
    const partition = Partitioners.DefaultPartitioner();
    for (let i = 0; i < 2_000; i++) {
      const key = `F${i}-${(i * 7919).toString(36)}${i % 3 === 0 ? "✈" : ""}`;
      expect(partition({ topic: "t", partitionMetadata: sixPartitions, message: { key, value: null } })).toBe(javaPartition(key, 6));
    }
  });
});
