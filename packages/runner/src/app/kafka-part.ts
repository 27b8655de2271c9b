import { KafkaDeliveryPort, clusterReplication, ensureTopics, kafkajsLogCreator, mapKafkaError, stopIdleRequestChecks } from "@msgx/adapters-kafka";
import { QueueTopics } from "@msgx/adapters-kafka/reliable";
import { errorMessage, type DeliveryPort, type Logger } from "@msgx/core";
import type { Admin } from "kafkajs";
import type { MsgxConfig } from "../config/config-schema.js";
import type { QueueTopicsPort } from "./app-parts.js";
import type { HealthCheck } from "./health-check.js";

/** What the runner holds of Kafka: the delivery port, the queue topics, a health check and its closer. */
export interface KafkaPart {
  readonly delivery: DeliveryPort;
  /** Absent for admin commands (they create no topics). */
  readonly queueTopics?: QueueTopicsPort;
  readonly check: HealthCheck;
  close(): Promise<void>;
}

export interface OpenKafkaOptions {
  /** Admin commands read and replay: they neither create topics nor start without a broker. */
  readonly admin: boolean;
  /** Abandons the first connect (a stop while it retries). */
  readonly signal?: AbortSignal | undefined;
  /** Whether this runner still leads: given, the producer is fenced per leader (docs/kafka.md). */
  readonly confirmLeadership?: (() => Promise<boolean>) | undefined;
}

/** What is open once the broker answered: the admin client, and the queue topics (not for admin commands). */
interface Opened {
  readonly admin: Admin;
  readonly queueTopics?: QueueTopics;
}

/**
 * Opens Kafka for the runner. With the broker answering, as before: the admin connects, the
 * pipeline's topics are ensured, then the runner starts. With the broker unreachable at start, the
 * runner still starts (docs/reliable-message.md "The outbox while the broker is away"): everything
 * that only writes PostgreSQL — prepares, confirms, cancels, check-backs, the pipeline's intake —
 * works, sends wait in the outbox, and the first use that needs the broker (a send, a queue's
 * topics, the health check) connects and ensures the topics first; until it can, that use fails
 * `DEPENDENCY_UNAVAILABLE` and the relays back off as in any outage. A broker that answers but
 * refuses the configuration (replication beyond its brokers) still stops the start.
 */
export async function openKafka(config: MsgxConfig, logger: Logger, options: OpenKafkaOptions): Promise<KafkaPart> {
  const k = config.kafka;
  const brokers = (k.brokers ?? "").split(",").map((b) => b.trim()).filter(Boolean);
  const kafkajs = (await import("kafkajs")).default;
  const kafka = new kafkajs.Kafka({ brokers, clientId: `${k.clientId}-admin`, logCreator: kafkajsLogCreator(logger), connectionTimeout: 3_000 });
  stopIdleRequestChecks(kafka);
  let current: Admin | undefined;
  let closed = false;

  /** Connects a fresh admin client (a failed one is dropped); rejects `DEPENDENCY_UNAVAILABLE`. */
  const connect = async (signal?: AbortSignal): Promise<Admin> => {
    const admin = kafka.admin();
    current = admin;
    // kafkajs retries a connect for ~20 s; a stop meanwhile must not wait for it.
    const abandon = () => void admin.disconnect().catch(() => undefined);
    signal?.addEventListener("abort", abandon, { once: true });
    try {
      await admin.connect();
      return admin;
    } catch (e) {
      void admin.disconnect().catch(() => undefined);
      throw mapKafkaError(e, "connect the admin client", "connect");
    } finally {
      signal?.removeEventListener("abort", abandon);
    }
  };
  /** What the runner needs once connected: the replication after the cluster's size, the pipeline's topics. */
  const setUp = async (admin: Admin): Promise<Opened> => {
    if (options.admin) return { admin };
    // Every topic msgx creates is replicated after the cluster's size (RF 3, min ISR 2 on three brokers).
    const { brokers: registered, ...replication } = await clusterReplication(admin, { replicationFactor: k.replicationFactor, minInsyncReplicas: k.minInsyncReplicas });
    logger.info("kafka: topics msgx creates are replicated", { brokers: registered, ...replication });
    const topics = { partitions: k.partitions, ...replication };
    if (k.createTopics) await ensureTopics(admin, { msgTopic: k.msgTopic, schdTopic: k.schdTopic, refTopic: k.refTopic, ...topics });
    // Reliable-message queue topics and task topics are created on first use (reliable/tasks.createTopics), not here.
    return { admin, queueTopics: new QueueTopics(admin, topics) };
  };

  let opened: Opened | undefined;
  let opening: Promise<Opened> | undefined;
  let first: Admin | undefined;
  /** Why the broker did not answer last, for the health check an operator reads. */
  let lastError = "";
  try {
    first = await connect(options.signal);
  } catch (e) {
    if (options.admin || options.signal?.aborted) throw e;
    lastError = errorMessage(e);
    logger.error("kafka: unreachable at start; the runner starts without it: prepares, confirms and the intake write PostgreSQL, sends wait in the outbox until the broker answers", { brokers, error: errorMessage(e) });
  }
  if (first) {
    try {
      opened = await setUp(first);
    } catch (e) {
      await first.disconnect().catch(() => undefined);
      throw e;
    }
  }
  /** The open part, connecting (once at a time) while it is not. */
  const ready = (): Promise<Opened> => {
    if (opened) return Promise.resolve(opened);
    if (closed) return Promise.reject(mapKafkaError(new Error("closed"), "the runner is stopping", "connect"));
    opening ??= connect()
      .then(async (admin) => {
        try {
          return await setUp(admin);
        } catch (e) {
          void admin.disconnect().catch(() => undefined);
          throw e;
        }
      })
      .catch((e: unknown) => {
        lastError = errorMessage(e);
        throw e;
      })
      .then((o) => {
        opened = o;
        logger.info("kafka: the broker answers; sends waiting in the outbox go now", { brokers });
        return o;
      })
      .finally(() => (opening = undefined));
    return opening;
  };

  // A stale leader's send must never land after a newer leader's: every leader of this exchange
  // claims the same transactional id, and a newer claim fences the older (docs/kafka.md).
  const fencing = options.confirmLeadership && { transactionalId: `${k.clientId}:${k.schdTopic}`, confirm: options.confirmLeadership };
  const port = new KafkaDeliveryPort({ brokers, clientId: k.clientId, logger, ...(fencing ? { fencing } : {}) });
  const delivery: DeliveryPort = opened ? port : { send: async (records, signal) => (await ready(), port.send(records, signal)) };
  const queueTopics: QueueTopicsPort | undefined = options.admin
    ? undefined
    : {
        ensure: async (topics) => (await ready()).queueTopics!.ensure(topics),
        // Asked by a producer's prepare: never held for a connect's retries.
        exists: async (topic) => {
          if (!opened) {
            void ready().catch(() => undefined);
            throw mapKafkaError(new Error("not connected since the start"), `look up ${topic}`, "connect");
          }
          return opened.queueTopics!.exists(topic);
        },
      };
  return {
    delivery,
    ...(queueTopics ? { queueTopics } : {}),
    check: {
      name: "kafka",
      check: async () => {
        // A probe never waits out a connect's retries: it starts one and answers at once.
        if (!opened) {
          void ready().catch(() => undefined);
          throw new Error(`kafka unreachable since the start (${lastError}): sends wait in the outbox`);
        }
        await opened.admin.describeCluster();
      },
    },
    close: async () => {
      closed = true;
      await port.disconnect();
      await current?.disconnect();
    },
  };
}
