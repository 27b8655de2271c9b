import { KafkaDeliveryPort, clusterReplication, ensureTopics, kafkajsLogCreator } from "@msgx/adapters-kafka";
import { QueueTopics } from "@msgx/adapters-kafka/reliable";
import type { DeliveryPort, Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { JsonlDeliveryPort } from "../embedded/jsonl-delivery-port.js";
import type { QueueTopicsPort } from "./app-parts.js";
import type { HealthCheck } from "./health-check.js";
import type { PartClosers } from "./part-closers.js";

/** Where events go, and what checks it. */
export interface DeliveryParts {
  readonly delivery: DeliveryPort;
  /** Absent for JSONL files, and for an admin command (it creates no topics). */
  readonly queueTopics?: QueueTopicsPort;
  readonly checks: readonly HealthCheck[];
}

export interface DeliveryOptions {
  /** An admin command: it creates no topics. */
  readonly admin: boolean;
  /** Ends a Kafka connect in progress. */
  readonly signal?: AbortSignal;
  /** Told when Kafka is being opened. */
  opening(): void;
}

/** Events go to Kafka at `kafka.brokers`, else to JSONL files in the data directory. */
export async function openDelivery(config: MsgxConfig, logger: Logger, closers: PartClosers, options: DeliveryOptions): Promise<DeliveryParts> {
  if (config.kafka.brokers !== undefined) return openKafka(config, config.kafka.brokers, logger, closers, options);
  const jsonl = new JsonlDeliveryPort(config.dataDir);
  closers.add(() => jsonl.close());
  return { delivery: jsonl, checks: [] };
}

async function openKafka(config: MsgxConfig, brokerList: string, logger: Logger, closers: PartClosers, options: DeliveryOptions): Promise<DeliveryParts> {
  options.opening();
  const brokers = brokerList.split(",").map((b) => b.trim()).filter(Boolean);
  const kafkajs = (await import("kafkajs")).default;
  const kafka = new kafkajs.Kafka({ brokers, clientId: `${config.kafka.clientId}-admin`, logCreator: kafkajsLogCreator(logger), connectionTimeout: 3_000 });
  const admin = kafka.admin();
  // kafkajs retries a connect for ~20 s; a stop meanwhile must not wait for it.
  const abandon = () => void admin.disconnect().catch(() => undefined);
  options.signal?.addEventListener("abort", abandon, { once: true });
  await admin.connect().finally(() => options.signal?.removeEventListener("abort", abandon));
  closers.add(() => admin.disconnect());
  let queueTopics: QueueTopicsPort | undefined;
  if (!options.admin) {
    // Every topic msgx creates is replicated after the cluster's size (RF 3, min ISR 2 on three brokers).
    const { brokers: registered, ...replication } = await clusterReplication(admin, { replicationFactor: config.kafka.replicationFactor, minInsyncReplicas: config.kafka.minInsyncReplicas });
    logger.info("kafka: topics msgx creates are replicated", { brokers: registered, ...replication });
    const topics = { partitions: config.kafka.partitions, ...replication };
    if (config.kafka.createTopics) {
      await ensureTopics(admin, { msgTopic: config.kafka.msgTopic, schdTopic: config.kafka.schdTopic, refTopic: config.kafka.refTopic, ...topics });
    }
    // Reliable-message queue topics and task topics are created on first use (reliable/tasks.createTopics), not here.
    queueTopics = new QueueTopics(admin, topics);
  }
  const port = new KafkaDeliveryPort({ brokers, clientId: config.kafka.clientId, logger });
  closers.add(() => port.disconnect());
  return {
    delivery: port,
    ...(queueTopics ? { queueTopics } : {}),
    checks: [{ name: "kafka", check: async () => void (await admin.describeCluster()) }],
  };
}
