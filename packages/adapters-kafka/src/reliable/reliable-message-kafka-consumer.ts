import { errorMessage, silentLogger, systemClock, type Clock, type Logger } from "@msgx/core";
import { type ConsumeOutcome } from "@msgx/reliable";
import kafkajs, { type Consumer, type Kafka, type RetryOptions } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";
import { stopIdleRequestChecks } from "../idle-request-checks.js";
import { kafkajsLogCreator } from "../kafkajs-log-creator.js";
import { waitWithHeartbeat } from "../wait-with-heartbeat.js";

const { Kafka: KafkaClient, logLevel: LogLevel } = kafkajs;

/**
 * What the wiring hands each record value to: `ReliableMessageConsumer` from `@msgx/core`.
 * `attempt` is 1 for a record just delivered and `outcome.attempt + 1` after a `retry` outcome.
 */
export interface RecordValueHandler {
  handle(value: string | null, attempt?: number): Promise<ConsumeOutcome>;
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
  /** The clock the helper's `retry.at` instants come from (default the system clock). */
  readonly clock?: Clock;
  /** A new group starts at the earliest record (default true): nothing sent before it joined is skipped. */
  readonly fromBeginning?: boolean;
  /** kafkajs' retry of a record whose `handle` threw, before the consumer restarts (default 5 tries from 300 ms). */
  readonly retry?: RetryOptions;
  readonly sessionTimeoutMs?: number;
  /** Also how often a record waiting for its next try heartbeats the group (default 3 s). */
  readonly heartbeatIntervalMs?: number;
  readonly maxWaitTimeMs?: number;
}

/**
 * A kafkajs consumer group on one reliable-message queue topic, feeding every record value to the
 * consumer helper, one partition at a time in offset order.
 *
 * The helper's outcome decides the offset:
 * - `retry` (its handler threw inside its budget): the same record is handled again at `at`; the
 *   wait holds the partition and heartbeats the group, and `stop` ends it (the record is then not
 *   committed, so it is redelivered).
 * - `consumed` / `duplicate`: the offset is committed (kafkajs' auto-commit of a resolved record).
 * - `rejected` (the budget is spent and the service took the reject, which redelivers it later or
 *   dead-letters it): the offset is committed too, so one poisonous message never blocks its
 *   partition.
 * - `invalid` (not an envelope): logged by the helper and committed: retrying cannot help.
 * - `handle` throws (an outage of the consumer's database, or a failed reject): nothing is
 *   committed, and kafkajs redelivers the record (its retry, then a consumer restart). The
 *   helper's consume log makes every redelivery, like every resend of the recovery job, a no-op
 *   that only acknowledges again.
 * A crash redelivers from the last committed offset.
 */
export class ReliableMessageKafkaConsumer {
  readonly #options: ReliableMessageKafkaConsumerOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #heartbeatEvery: number;
  readonly #consumer: Consumer;
  #abort = new AbortController();
  #running = false;

  constructor(options: ReliableMessageKafkaConsumerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? systemClock;
    this.#heartbeatEvery = options.heartbeatIntervalMs ?? 3_000;
    const kafka =
      "consumer" in options.kafka
        ? options.kafka
        : quietClient(
            new KafkaClient({
              clientId: options.kafka.clientId ?? `msgx-rm-${options.groupId}`,
              brokers: [...options.kafka.brokers],
              logLevel: LogLevel.WARN,
              logCreator: kafkajsLogCreator(this.#logger),
            }),
          );
    this.#consumer = kafka.consumer({
      groupId: options.groupId,
      retry: { retries: 5, initialRetryTime: 300, ...options.retry },
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.#heartbeatEvery,
      maxWaitTimeInMs: options.maxWaitTimeMs ?? 500,
    });
  }

  /** Connects, joins the group and starts consuming. Throws a mapped `MsgxError` when Kafka is not there. */
  async start(): Promise<void> {
    const { topic, consumer } = this.#options;
    this.#abort = new AbortController();
    const signal = this.#abort.signal;
    try {
      await this.#consumer.connect();
      await this.#consumer.subscribe({ topics: [topic], fromBeginning: this.#options.fromBeginning ?? true });
      await this.#consumer.run({
        partitionsConsumedConcurrently: 1,
        eachMessage: async ({ partition, message, heartbeat }) => {
          const value = message.value === null ? null : message.value.toString("utf8");
          const where = { topic, partition, offset: message.offset };
          let attempt = 1;
          try {
            for (;;) {
              const outcome = await consumer.handle(value, attempt);
              if (outcome.kind !== "retry") {
                if (outcome.kind === "rejected") {
                  this.#logger.warn("reliable message consumer: rejected past the retry budget; moving on", { ...where, messageId: outcome.messageId, attempts: outcome.attempts });
                }
                return;
              }
              await waitWithHeartbeat(outcome.at - this.#clock.now(), heartbeat, this.#heartbeatEvery, signal);
              attempt = outcome.attempt + 1;
            }
          } catch (e) {
            if (signal.aborted) throw e;
            this.#logger.warn("reliable message consumer: handling failed; Kafka will redeliver", { ...where, error: errorMessage(e) });
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

  /** Ends a wait for a retry (that record stays uncommitted) and leaves the group; committed offsets stay for the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#abort.abort(new Error("reliable-message consumer stopping"));
    await this.#consumer.disconnect();
  }

  get running(): boolean {
    return this.#running;
  }
}

/** A client this consumer made itself: its connections do not wake while idle (`stopIdleRequestChecks`). */
function quietClient(kafka: Kafka): Kafka {
  stopIdleRequestChecks(kafka);
  return kafka;
}
