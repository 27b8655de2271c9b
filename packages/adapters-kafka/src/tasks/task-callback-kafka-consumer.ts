import { errorMessage, isMsgxError, silentLogger, type Logger } from "@msgx/core";
import type { Consumer, ConsumerConfig, Kafka } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";
import { waitWithHeartbeat } from "../wait-with-heartbeat.js";
import { exponentialBackoff } from "@msgx/core";

/** The waits before a failed callback record is handed to `onRecord` again. */
const RECORD_RETRY = { initialMs: 1_000, maxMs: 30_000 };

export interface TaskCallbackKafkaConsumerOptions {
  readonly kafka: Kafka;
  /** The result topic (seed 001 §9.2, `TASK_CALLBACK_RESULT_TOPIC`). */
  readonly topic: string;
  /** Default `task-service-callbacks`. */
  readonly groupId?: string;
  /**
   * Records one callback record: typically `service.callback(parseTaskCallbackMessage(value))`.
   * Throw a non-retriable `MsgxError` to skip a record for good (it is logged); anything else is
   * retried with backoff (1 s doubling to 30 s) on the same record.
   */
  readonly onRecord: (value: string | null, key: string | null) => Promise<void>;
  readonly logger?: Logger;
  readonly consumerConfig?: Partial<Omit<ConsumerConfig, "groupId">>;
}

/**
 * The task service's consumer of owner callbacks on a result topic. The task service's callback
 * handling is idempotent, so a redelivered record is harmless.
 */
export async function runTaskCallbackConsumer(options: TaskCallbackKafkaConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const groupId = options.groupId ?? "task-service-callbacks";
  const logger = options.logger ?? silentLogger;
  const abort = new AbortController();
  const consumer: Consumer = options.kafka.consumer({ sessionTimeout: 30_000, heartbeatInterval: 3_000, maxWaitTimeInMs: 500, ...options.consumerConfig, groupId });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [options.topic], fromBeginning: true });
  } catch (e) {
    await consumer.disconnect().catch(() => undefined);
    throw mapKafkaError(e, `task callback consumer ${groupId} start`, "connect");
  }
  await consumer.run({
    eachMessage: async ({ message, heartbeat }) => {
      const value = message.value === null ? null : message.value.toString("utf8");
      const key = message.key === null ? null : message.key.toString("utf8");
      for (let failures = 0; ; failures++) {
        try {
          await options.onRecord(value, key);
          return;
        } catch (e) {
          if (isMsgxError(e) && !e.retriable) {
            logger.error("task callback record skipped", { groupId, offset: message.offset, key, error: errorMessage(e) });
            return;
          }
          const wait = exponentialBackoff(RECORD_RETRY, failures + 1);
          logger.warn("task callback record failed; retrying", { groupId, offset: message.offset, key, error: errorMessage(e), retryInMs: wait });
          await waitWithHeartbeat(wait, heartbeat, 3_000, abort.signal);
        }
      }
    },
  });
  return {
    async stop() {
      abort.abort(new Error("task callback consumer stopping"));
      await consumer.disconnect().catch(() => undefined);
    },
  };
}
