import { MsgxError } from "@msgx/core";
import type { Admin } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";
import { createTopicsAndWaitForLeaders } from "../topic-leaders.js";

/** What `ensureQueueTopics` needs of a kafkajs admin client (connected by the caller). */
export type QueueTopicAdmin = Pick<Admin, "listTopics" | "createTopics" | "fetchTopicMetadata">;

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
    await createTopicsAndWaitForLeaders(
      admin,
      missing.map((topic) => ({
        topic,
        numPartitions: options.partitions,
        replicationFactor: options.replicationFactor ?? -1,
        configEntries: [{ name: "cleanup.policy", value: "delete" }, ...isr],
      })),
      options.timeoutMs ?? 30_000,
    );
    return missing;
  } catch (e) {
    throw mapKafkaError(e, `ensure queue topics ${topics.join(", ")}`);
  }
}

/**
 * The topics of reliable-message queues, created on first use (`ensure`) or only looked up
 * (`exists`) when the operator creates them. A topic known to exist is remembered, so the relay
 * and the producer API ask the broker once per topic and process; concurrent calls for the same
 * topics share one broker round trip. Records reach these topics through the same delivery port as
 * msg/schd (acks=all, idempotent, one request in flight, murmur2 partitioner), and they are created
 * like the msg topic: `cleanup.policy=delete`, the configured partitions, `min.insync.replicas` when given.
 */
export class QueueTopics {
  readonly #admin: QueueTopicAdmin;
  readonly #options: EnsureQueueTopicsOptions;
  readonly #known = new Set<string>();
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(admin: QueueTopicAdmin, options: EnsureQueueTopicsOptions) {
    if (!Number.isInteger(options.partitions) || options.partitions < 1) {
      throw new MsgxError("CONFIG", `partitions must be a positive integer: ${options.partitions}`);
    }
    this.#admin = admin;
    this.#options = options;
  }

  /** Creates those of `topics` that do not exist yet. Broker failures throw mapped (`DEPENDENCY_UNAVAILABLE` / `INFRA`). */
  async ensure(topics: readonly string[]): Promise<void> {
    const wanted = [...new Set(topics)].filter((t) => !this.#known.has(t));
    if (wanted.length === 0) return;
    const key = [...wanted].sort().join("\n");
    let pending = this.#inFlight.get(key);
    if (pending === undefined) {
      pending = ensureQueueTopics(this.#admin, wanted, this.#options)
        .then(() => void wanted.forEach((t) => this.#known.add(t)))
        .finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    await pending;
  }

  /** Whether `topic` exists on the brokers (asked again each time until it does). */
  async exists(topic: string): Promise<boolean> {
    if (this.#known.has(topic)) return true;
    let present: readonly string[];
    try {
      present = await this.#admin.listTopics();
    } catch (e) {
      throw mapKafkaError(e, `list topics (looking for ${topic})`);
    }
    for (const t of present) if (t === topic) this.#known.add(t);
    return this.#known.has(topic);
  }
}
