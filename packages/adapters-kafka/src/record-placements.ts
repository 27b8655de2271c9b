import type { DeliveryPlacement } from "@msgx/core";
import type { ICustomPartitioner, Message, RecordMetadata } from "kafkajs";

/**
 * Remembers the partition `inner` picks for each message object, so the port can tell which
 * partition a record went to: kafkajs answers a produce per topic-partition, not per record.
 * The choice is unchanged; only recorded (a retry re-partitions, and the last choice wins).
 */
export const recordingPartitioner =
  (inner: ICustomPartitioner, partitionOf: WeakMap<Message, number>): ICustomPartitioner =>
  () => {
    const pick = inner();
    return (args) => {
      const partition = pick(args);
      partitionOf.set(args.message, partition);
      return partition;
    };
  };

/** One record of a `sendBatch`, in call order. */
export interface SentMessage {
  readonly topic: string;
  readonly message: Message;
}

/**
 * The placement of each record of one acknowledged `sendBatch`, in call order. The broker answers
 * each topic-partition with the base offset of the one record batch it appended: kafkajs puts a
 * call's messages for one partition in a single batch in call order, and the idempotent producer
 * (one request in flight) appends that batch whole, so the i-th record to a partition sits at
 * base offset + i. Null for a record whose partition or base offset is unknown.
 */
export function recordPlacements(
  sent: readonly SentMessage[],
  partitionOf: WeakMap<Message, number>,
  acks: readonly RecordMetadata[],
): (DeliveryPlacement | null)[] {
  const baseOffset = new Map<string, number>();
  for (const ack of acks) {
    const base = Number(ack.baseOffset ?? ack.offset);
    if (ack.errorCode === 0 && Number.isSafeInteger(base) && base >= 0) baseOffset.set(slot(ack.topicName, ack.partition), base);
  }
  const taken = new Map<string, number>();
  return sent.map(({ topic, message }) => {
    const partition = partitionOf.get(message);
    if (partition === undefined) return null;
    const key = slot(topic, partition);
    const base = baseOffset.get(key);
    if (base === undefined) return null;
    const index = taken.get(key) ?? 0;
    taken.set(key, index + 1);
    return { partition, offset: base + index };
  });
}

const slot = (topic: string, partition: number): string => `${partition}\u0000${topic}`;
