import { MsgxError } from "@msgx/core";
import kafkajs, { type Admin } from "kafkajs";
import { mapKafkaError } from "./kafka-error-map.js";
import { createTopicsAndWaitForLeaders } from "./topic-leaders.js";

// kafkajs is CommonJS and Node ESM does not see this export by name.
const { ConfigResourceTypes } = kafkajs;

/** What `ensureTopics` needs of a kafkajs admin client (connected by the caller). */
export type TopicAdmin = Pick<Admin, "listTopics" | "createTopics" | "fetchTopicMetadata" | "describeConfigs">;

export interface EnsureTopicsOptions {
  /** The per-message topic (`KAFKA:msg`): delete policy, every event kept for the retention. */
  readonly msgTopic: string;
  /** The latest-state topic (`KAFKA:schd`): `cleanup.policy=compact`, tombstones delete a key. */
  readonly schdTopic: string;
  /** The reference-data topic (`KAFKA:ref`), compacted like schd; not created when not given. */
  readonly refTopic?: string;
  /** Partitions for a topic that is created. An existing topic is never repartitioned. */
  readonly partitions: number;
  /** Replication factor for a created topic (default: the broker's `default.replication.factor`). */
  readonly replicationFactor?: number;
  /** `min.insync.replicas` for created topics (default: the broker's). With acks=all, set 2 of 3. */
  readonly minInsyncReplicas?: number;
  /** How long the broker may take to create them and elect leaders (default 30 s). */
  readonly timeoutMs?: number;
}

export interface EnsureTopicsResult {
  readonly created: readonly string[];
  readonly existing: readonly string[];
}

/**
 * Creates the msgx topics that do not exist yet and waits for their leaders. Safe to run from
 * several processes at once. Refuses (`MsgxError("CONFIG")`) a schd or reference topic that
 * exists without compaction: consumers rebuilding the latest state from it would read every old
 * state forever, and a deleted key would never go.
 * Broker failures are mapped like the delivery port's (`DEPENDENCY_UNAVAILABLE` / `INFRA`).
 */
export async function ensureTopics(admin: TopicAdmin, options: EnsureTopicsOptions): Promise<EnsureTopicsResult> {
  const { msgTopic, schdTopic, refTopic, partitions } = options;
  const names = [msgTopic, schdTopic, ...(refTopic === undefined ? [] : [refTopic])];
  if (new Set(names).size !== names.length) throw new MsgxError("CONFIG", `msg, schd and ref need distinct topics: ${names.join(", ")}`);
  if (!Number.isInteger(partitions) || partitions < 1) throw new MsgxError("CONFIG", `partitions must be a positive integer: ${partitions}`);
  const timeout = options.timeoutMs ?? 30_000;
  const shared = options.minInsyncReplicas === undefined ? [] : [{ name: "min.insync.replicas", value: String(options.minInsyncReplicas) }];
  const wanted = [
    { topic: msgTopic, configEntries: [{ name: "cleanup.policy", value: "delete" }, ...shared] },
    { topic: schdTopic, configEntries: [{ name: "cleanup.policy", value: "compact" }, ...shared] },
    ...(refTopic === undefined ? [] : [{ topic: refTopic, configEntries: [{ name: "cleanup.policy", value: "compact" }, ...shared] }]),
  ];
  try {
    const present = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !present.has(t.topic));
    await createTopicsAndWaitForLeaders(
      admin,
      missing.map((t) => ({ ...t, numPartitions: partitions, replicationFactor: options.replicationFactor ?? -1 })),
      timeout,
    );
    await assertCompacted(admin, schdTopic);
    if (refTopic !== undefined) await assertCompacted(admin, refTopic);
    return {
      created: missing.map((t) => t.topic),
      existing: wanted.filter((t) => present.has(t.topic)).map((t) => t.topic),
    };
  } catch (e) {
    throw mapKafkaError(e, `ensure topics ${names.join(", ")}`);
  }
}

async function assertCompacted(admin: TopicAdmin, topic: string): Promise<void> {
  const described = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ["cleanup.policy"] }],
    includeSynonyms: false,
  });
  const entry = described.resources[0]?.configEntries.find((c) => c.configName === "cleanup.policy");
  const policy = entry?.configValue ?? "";
  if (!policy.split(",").map((p) => p.trim()).includes("compact")) {
    throw new MsgxError("CONFIG", `topic ${topic} must have cleanup.policy=compact, has "${policy}"`, { retriable: false });
  }
}
