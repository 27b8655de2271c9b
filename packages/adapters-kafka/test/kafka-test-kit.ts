import { randomBytes } from "node:crypto";
import type { Admin, IHeaders, Kafka } from "kafkajs";
import { eventHeaders, type OutboxEvent } from "@msgx/core";
import { createTopicsAndWaitForLeaders } from "../src/topic-leaders.js";

/** The headers msgx sends for a PENDING outbox row with these fields (core's `eventHeaders`). */
export function eventHeadersOf(
  fields: Pick<OutboxEvent, "eventId" | "eventType" | "stateVersion" | "sourceMsgId"> & Partial<OutboxEvent>,
): Readonly<Record<string, string>> {
  return eventHeaders({ target: "KAFKA:test", partitionKey: "", payload: null, status: "PENDING", attempts: 0, nextAttemptAt: null, lastError: null, createdAt: 0, sentAt: null, ...fields });
}

/** A topic name no other run uses. */
export const uniqueTopic = (prefix: string): string => `msgx-it-${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;

export interface Consumed {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: IHeaders | undefined;
}

/** Creates topics with `partitions` partitions (and optional config) and waits for their leaders (`createTopicsAndWaitForLeaders`), up to 30 s. */
export async function createTopics(admin: Admin, topics: readonly string[], partitions: number, configEntries: { name: string; value: string }[] = []): Promise<void> {
  await createTopicsAndWaitForLeaders(admin, topics.map((topic) => ({ topic, numPartitions: partitions, configEntries })), 30_000);
}

/** Total records appended to `topic` (sum of high watermarks; every topic here starts empty). */
export async function appendedCount(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
}

/**
 * Reads `topics` from the beginning with a real kafkajs consumer group until `count` records have
 * arrived, in the order the consumer delivers them (per partition: log order).
 */
export async function consume(kafka: Kafka, topics: readonly string[], count: number, timeoutMs = 40_000): Promise<Consumed[]> {
  const consumer = kafka.consumer({
    groupId: `msgx-it-${randomBytes(4).toString("hex")}`,
    maxWaitTimeInMs: 100,
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
  });
  const got: Consumed[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumed ${got.length} of ${count} records within ${timeoutMs} ms`)), timeoutMs);
      consumer
        .run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              got.push({
                topic: batch.topic,
                partition: batch.partition,
                offset: m.offset,
                key: m.key === null ? null : m.key.toString("utf8"),
                value: m.value === null ? null : m.value.toString("utf8"),
                headers: m.headers,
              });
            }
            if (got.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return got;
}
