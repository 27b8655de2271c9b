import { MsgxError } from "@msgx/core";
import type { Admin } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";

/** What `ensureQueueTopics` needs of a kafkajs admin client (connected by the caller). */
export type QueueTopicAdmin = Pick<Admin, "listTopics" | "createTopics">;

export interface EnsureQueueTopicsOptions {
  /** Partitions for a topic that is created. An existing topic is never repartitioned. */
  readonly partitions: number;
  readonly replicationFactor?: number;
  /** With acks=all, set 2 of 3 in production. Default: the broker's. */
  readonly minInsyncReplicas?: number;
  readonly timeoutMs?: number;
}

/**
 * Creates the reliable-message queue topics that do not exist yet (`cleanup.policy=delete`: every
 * send is kept for the retention) and waits for their leaders. The delivery port never creates
 * topics itself. Returns the topics it created.
 */
export async function ensureQueueTopics(admin: QueueTopicAdmin, topics: readonly string[], options: EnsureQueueTopicsOptions): Promise<readonly string[]> {
  if (!Number.isInteger(options.partitions) || options.partitions < 1) {
    throw new MsgxError("CONFIG", `partitions must be a positive integer: ${options.partitions}`);
  }
  const isr = options.minInsyncReplicas === undefined ? [] : [{ name: "min.insync.replicas", value: String(options.minInsyncReplicas) }];
  try {
    const present = new Set(await admin.listTopics());
    const missing = [...new Set(topics)].filter((t) => !present.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        topics: missing.map((topic) => ({
          topic,
          numPartitions: options.partitions,
          replicationFactor: options.replicationFactor ?? -1,
          configEntries: [{ name: "cleanup.policy", value: "delete" }, ...isr],
        })),
        waitForLeaders: true,
        timeout: options.timeoutMs ?? 30_000,
      });
    }
    return missing;
  } catch (e) {
    throw mapKafkaError(e, `ensure queue topics ${topics.join(", ")}`);
  }
}
