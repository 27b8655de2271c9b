import { silentLogger, type Logger } from "@msgx/core";
import kafkajs, { type Consumer, type Kafka, type RetryOptions } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";
import { kafkajsLogCreator } from "../kafkajs-log-creator.js";

const { Kafka: KafkaClient, logLevel: LogLevel } = kafkajs;

/** What the wiring hands each record value to: `ReliableMessageConsumer` from `@msgx/core`. */
export interface RecordValueHandler {
  handle(value: string | null): Promise<unknown>;
}

export interface ReliableMessageKafkaConsumerOptions {
  /** A kafkajs client to share, or the brokers to build one for this consumer. */
  readonly kafka: Kafka | { readonly brokers: readonly string[]; readonly clientId?: string };
  /** The consumer group of the consuming service (one group per service and queue). */
  readonly groupId: string;
  /** The queue's topic (`reliableMessageTopics`: `rmq.<queue>` by default). */
  readonly topic: string;
  readonly consumer: RecordValueHandler;
  readonly logger?: Logger;
  /** A new group starts at the earliest record (default true): nothing sent before it joined is skipped. */
  readonly fromBeginning?: boolean;
  /** kafkajs' retry of a failing handler before the consumer restarts (default 5 tries from 300 ms). */
  readonly retry?: RetryOptions;
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  readonly maxWaitTimeMs?: number;
}

/**
 * A kafkajs consumer group on one reliable-message queue topic, feeding every record value to the
 * consumer helper, one partition at a time in offset order.
 *
 * Offsets are committed only after the helper resolved (its transaction committed and the
 * message was acknowledged): a handler that throws makes kafkajs redeliver the same record (its
 * retry, then a consumer restart), and a crash redelivers from the last committed offset. The
 * helper's consume log makes every redelivery, like every resend of the recovery job, a no-op
 * that only acknowledges again. Records that are not envelopes are logged by the helper and
 * skipped (their offset is committed): retrying them cannot help.
 */
export class ReliableMessageKafkaConsumer {
  readonly #options: ReliableMessageKafkaConsumerOptions;
  readonly #logger: Logger;
  readonly #consumer: Consumer;
  #running = false;

  constructor(options: ReliableMessageKafkaConsumerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    const kafka =
      "consumer" in options.kafka
        ? options.kafka
        : new KafkaClient({
            clientId: options.kafka.clientId ?? `msgx-rm-${options.groupId}`,
            brokers: [...options.kafka.brokers],
            logLevel: LogLevel.WARN,
            logCreator: kafkajsLogCreator(this.#logger),
          });
    this.#consumer = kafka.consumer({
      groupId: options.groupId,
      retry: { retries: 5, initialRetryTime: 300, ...options.retry },
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeInMs: options.maxWaitTimeMs ?? 500,
    });
  }

  /** Connects, joins the group and starts consuming. Throws a mapped `MsgxError` when Kafka is not there. */
  async start(): Promise<void> {
    const { topic, consumer } = this.#options;
    try {
      await this.#consumer.connect();
      await this.#consumer.subscribe({ topics: [topic], fromBeginning: this.#options.fromBeginning ?? true });
      await this.#consumer.run({
        partitionsConsumedConcurrently: 1,
        eachMessage: async ({ partition, message }) => {
          try {
            await consumer.handle(message.value === null ? null : message.value.toString("utf8"));
          } catch (e) {
            this.#logger.warn("reliable message consumer: handler failed; Kafka will redeliver", {
              topic,
              partition,
              offset: message.offset,
              error: e instanceof Error ? e.message : String(e),
            });
            throw e;
          }
        },
      });
      this.#running = true;
    } catch (e) {
      await this.#consumer.disconnect().catch(() => undefined);
      throw mapKafkaError(e, `start reliable-message consumer ${this.#options.groupId} on ${topic}`, "connect");
    }
  }

  /** Leaves the group after the record in hand; committed offsets stay for the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#consumer.disconnect();
  }

  get running(): boolean {
    return this.#running;
  }
}
