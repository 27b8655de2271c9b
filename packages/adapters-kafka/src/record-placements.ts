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
  // Per topic, indexed by partition: the next offset to give (base offset + records placed so far).
  const next = new Map<string, number[]>();
  for (const ack of acks) {
    const base = Number(ack.baseOffset ?? ack.offset);
    if (ack.errorCode !== 0 || !Number.isSafeInteger(base) || base < 0) continue;
    let offsets = next.get(ack.topicName);
    if (offsets === undefined) next.set(ack.topicName, (offsets = []));
    offsets[ack.partition] = base;
  }
  return sent.map(({ topic, message }) => {
    const partition = partitionOf.get(message);
    const offsets = next.get(topic);
    const offset = partition === undefined ? undefined : offsets?.[partition];
    if (partition === undefined || offsets === undefined || offset === undefined) return null;
    offsets[partition] = offset + 1;
    return { partition, offset };
  });
}
