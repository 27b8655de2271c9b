import { kafkajsLogCreator, stopIdleRequestChecks } from "@msgx/adapters-kafka";
import { runTaskCallbackConsumer } from "@msgx/adapters-kafka/tasks";
import { applyTaskCallbackRecord, type TaskService } from "@msgx/tasks";
import type { Logger } from "@msgx/core";
import type { QueueTopicsPort } from "../app/app-parts.js";
import type { TaskMetrics } from "./task-metrics.js";

/** Starts the consumer of `topic` handing each record to `onRecord` (kafkajs' `runTaskCallbackConsumer`; a fake in tests). */
export type StartCallbackConsumer = (topic: string, groupId: string, onRecord: (value: string | null, key: string | null) => Promise<void>) => Promise<{ stop(): Promise<void> }>;

export interface ResultTopicCallbacksOptions {
  readonly topic: string;
  readonly groupId: string;
  readonly service: Pick<TaskService, "callback">;
  readonly metrics: Pick<TaskMetrics, "callbackRecord">;
  readonly logger: Logger;
  /** Creates the result topic before the consumer first subscribes (`tasks.createTopics`). */
  readonly topics?: QueueTopicsPort | undefined;
  readonly start: StartCallbackConsumer;
}

/**
 * The runner's consumer of owner callbacks on the result topic (`tasks.callback.resultTopic`),
 * started by the leader's `task-callbacks` step and stopped with the leader's loops. Each record
 * goes through {@link applyTaskCallbackRecord}: applied, or logged, counted and skipped; a
 * transient failure is retried on the same record by the consumer, its offset uncommitted.
 */
export class ResultTopicCallbacks {
  readonly #o: ResultTopicCallbacksOptions;
  #running: { stop(): Promise<void> } | undefined;
  #stopped = false;

  constructor(options: ResultTopicCallbacksOptions) {
    this.#o = options;
  }

  /** Whether the consumer is running. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Starts the consumer unless it runs; throws (the step backs off and tries again) while the broker cannot be reached. */
  async ensureStarted(): Promise<void> {
    if (this.#running || this.#stopped) return;
    const { topic, groupId, topics, logger } = this.#o;
    if (topics) await topics.ensure([topic]);
    const running = await this.#o.start(topic, groupId, (value, key) => this.#onRecord(value, key));
    if (this.#stopped) return void (await running.stop());
    this.#running = running;
    logger.info("task callbacks: consuming the result topic", { topic, groupId });
  }

  /** Stops the consumer (a record waiting for its retry is left uncommitted) and starts none again. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#running;
    this.#running = undefined;
    await running?.stop();
  }

  async #onRecord(value: string | null, key: string | null): Promise<void> {
    const answer = await applyTaskCallbackRecord(this.#o.service, value);
    this.#o.metrics.callbackRecord(answer.outcome);
    if (answer.outcome === "applied") return;
    const fields = { topic: this.#o.topic, key, outcome: answer.outcome, status: answer.status, reason: answer.reason, ...(answer.taskId ? { taskId: answer.taskId } : {}) };
    if (answer.outcome === "malformed") this.#o.logger.error("task callback record malformed: skipped", fields);
    else this.#o.logger.warn("task callback record refused: skipped", fields);
  }
}

/** The consumer over kafkajs: its own client on `brokers`, logging through the runner's logger. */
export function kafkaCallbackConsumer(brokers: readonly string[], clientId: string, logger: Logger): StartCallbackConsumer {
  return async (topic, groupId, onRecord) => {
    const kafkajs = (await import("kafkajs")).default;
    const kafka = new kafkajs.Kafka({ brokers: [...brokers], clientId: `${clientId}-task-callbacks`, logCreator: kafkajsLogCreator(logger), connectionTimeout: 3_000 });
    stopIdleRequestChecks(kafka);
    return runTaskCallbackConsumer({ kafka, topic, groupId, logger, onRecord });
  };
}
