import { errorMessage, silentLogger, systemClock, type Clock, type Logger } from "@msgx/core";
import { type ConsumedTaskRecord, type TaskConsumeStep } from "@msgx/tasks";
import type { Consumer, ConsumerConfig, Kafka } from "kafkajs";
import { mapKafkaError } from "../kafka-error-map.js";
import { headerStrings } from "./kafka-record-headers.js";
import { waitWithHeartbeat } from "../wait-with-heartbeat.js";

/** What the Kafka wiring needs of a `TaskEventConsumer` (structural, any `Tx`). */
export interface TaskRecordHandler {
  readonly owner: string;
  handle(record: ConsumedTaskRecord, signal?: AbortSignal): Promise<TaskConsumeStep>;
}

export interface TaskEventKafkaConsumerOptions {
  /** A kafkajs client (the caller owns its brokers, TLS, SASL and logging). */
  readonly kafka: Kafka;
  readonly handler: TaskRecordHandler;
  /**
   * The topic to read: the shared task topic (`owner-header` routing) or the owner's own
   * (`topic-per-owner`): `taskTopic(routing, owner)`.
   */
  readonly topic: string;
  /** Default `<owner>-task-events`: one group per owner service, so each owner gets every record. */
  readonly groupId?: string;
  /** A new group starts at the earliest offset (default), so events written before it started are not missed. */
  readonly fromBeginning?: boolean;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Heartbeat while a record waits for its retry (default 3 s; below the session timeout). */
  readonly heartbeatIntervalMs?: number;
  /** Passed to kafkajs' consumer (session timeout, rebalance timeout, max bytes...). */
  readonly consumerConfig?: Partial<Omit<ConsumerConfig, "groupId">>;
}

/** A running owner consumer. */
export interface RunningTaskEventConsumer {
  readonly groupId: string;
  /** Stops taking records, ends a wait in progress (that record is not acknowledged) and disconnects. */
  stop(): Promise<void>;
}

/**
 * Runs an owner service's task-event consumer on a kafkajs consumer group (seed 001 §6.4).
 *
 * One record at a time per partition, in offset order (one task's events share a key, so a
 * partition). Each record goes to `handler.handle`; on `retry` the same record is handled again
 * at the step's instant — the wait holds the partition and heartbeats the group, so nothing
 * behind it is consumed out of order — and any other step resolves the record, whose offset
 * kafkajs then commits. Offsets are committed after the consume log row, so a crash in between
 * redelivers the record and the consume log acknowledges it unrun (at-least-once delivery,
 * at-most-once effect).
 */
export async function runTaskEventConsumer(options: TaskEventKafkaConsumerOptions): Promise<RunningTaskEventConsumer> {
  const { kafka, handler, topic } = options;
  const groupId = options.groupId ?? `${handler.owner}-task-events`;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const heartbeatEvery = options.heartbeatIntervalMs ?? 3_000;
  const abort = new AbortController();
  const consumer: Consumer = kafka.consumer({
    sessionTimeout: 30_000,
    heartbeatInterval: heartbeatEvery,
    maxWaitTimeInMs: 500,
    ...options.consumerConfig,
    groupId,
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: options.fromBeginning ?? true });
  } catch (e) {
    await consumer.disconnect().catch(() => undefined);
    throw mapKafkaError(e, `task event consumer ${groupId} start`, "connect");
  }
  await consumer.run({
    partitionsConsumedConcurrently: 1,
    eachMessage: async ({ topic: from, partition, message, heartbeat }) => {
      const record: ConsumedTaskRecord = {
        topic: from,
        partition,
        offset: message.offset,
        key: message.key === null ? null : message.key.toString("utf8"),
        value: message.value === null ? null : message.value.toString("utf8"),
        headers: headerStrings(message.headers),
      };
      for (;;) {
        const step = await handler.handle(record, abort.signal);
        if (step.did !== "retry") {
          if (step.did === "dead") logger.error("task event dead-lettered", { groupId, topic: from, partition, offset: message.offset, eventId: step.eventId, reason: step.reason });
          return;
        }
        await waitWithHeartbeat(step.at - clock.now(), heartbeat, heartbeatEvery, abort.signal);
      }
    },
  });
  logger.info("task event consumer started", { owner: handler.owner, groupId, topic });
  return {
    groupId,
    async stop() {
      abort.abort(new Error("task event consumer stopping"));
      await consumer.disconnect().catch((e: unknown) => logger.warn("task event consumer: disconnect failed", { groupId, error: errorMessage(e) }));
    },
  };
}
