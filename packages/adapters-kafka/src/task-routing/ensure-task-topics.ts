import { MsgxError } from "@msgx/core";
import type { Admin } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";

export interface EnsureTaskTopicsOptions {
  /** The task event topics (`taskTopics(routing, owners)`) and, if used, the callback result topic. */
  readonly topics: readonly string[];
  /** Partitions of a topic that is created (an existing one is never repartitioned). */
  readonly partitions: number;
  readonly replicationFactor?: number;
  readonly minInsyncReplicas?: number;
  readonly timeoutMs?: number;
}

/**
 * Creates the task-routing topics that are missing (`cleanup.policy=delete`: every event is kept
 * for the retention) and waits for their leaders. Safe to run from several processes at once.
 */
export async function ensureTaskTopics(admin: Pick<Admin, "listTopics" | "createTopics">, options: EnsureTaskTopicsOptions): Promise<readonly string[]> {
  if (!Number.isInteger(options.partitions) || options.partitions < 1) throw new MsgxError("CONFIG", `partitions must be a positive integer: ${options.partitions}`);
  const isr = options.minInsyncReplicas === undefined ? [] : [{ name: "min.insync.replicas", value: String(options.minInsyncReplicas) }];
  try {
    const present = new Set(await admin.listTopics());
    const missing = [...new Set(options.topics)].filter((t) => !present.has(t));
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
    throw mapKafkaError(e, `ensure task topics ${options.topics.join(", ")}`);
  }
}
