import { KafkaDeliveryPort } from "@msgx/adapters-kafka";
import { errorMessage, silentLogger, systemClock, type Logger, type RetryPolicy } from "@msgx/core";
import type { Kysely } from "kysely";
import { httpCallbackPort } from "./http-callback-port.js";
import { kafkaClient } from "./kafka.js";
import { LMS_HANDLERS } from "./lms-handlers.js";
import { Loop } from "./loop.js";
import { migrateLms, openDb } from "./pg.js";
import {
  PgTaskConsumeLogStore,
  resultTopicCallbackPort,
  runTaskEventConsumer,
  TaskCallbackSender,
  TaskEventConsumer,
  TaskHandlerRegistry,
  taskTopic,
  type TaskConsumeStep,
  type TaskRouting,
} from "./task-routing.js";

export interface LmsAppOptions {
  readonly pgUrl: string;
  /** LMS's own schema (its own database in production). */
  readonly schema: string;
  readonly brokers: readonly string[];
  readonly routing: TaskRouting;
  /** Where callbacks go: the task service's base URL. */
  readonly taskServiceUrl: string;
  /** Default `LMS`. */
  readonly owner?: string;
  /** Default `<owner>-task-events`. */
  readonly groupId?: string;
  /** When set, callbacks go as records on this result topic instead of HTTP. */
  readonly callbackTopic?: string;
  /** Handler failures (default SPEC §2.1: 5 attempts, backoff 1, 2, 4, 8 s). */
  readonly policy?: RetryPolicy;
  readonly logger?: Logger;
}

/** What the consumer did, for logs, demos and tests. */
export type LmsStats = Record<TaskConsumeStep["did"], number>;

export interface LmsApp {
  readonly db: Kysely<any>;
  readonly log: PgTaskConsumeLogStore;
  readonly stats: LmsStats;
  stop(): Promise<void>;
}

/**
 * The LMS owner service (seed 001 §6): a kafkajs consumer group reading its task events (its own
 * owner header, or its own topic), a handler registry with `LMS_STOCK_AREA_CALL_TUBE` and
 * `LMS_SLITTER_DOWN_AGV`, the consume log in LMS's PostgreSQL, and a callback sender reporting
 * each handled (or dead-lettered) event to the task service over HTTP.
 */
export async function startLmsApp(options: LmsAppOptions): Promise<LmsApp> {
  const logger = options.logger ?? silentLogger;
  const owner = options.owner ?? "LMS";
  // Built before anything connects: a duplicate handler code refuses to start here.
  const registry = new TaskHandlerRegistry([...LMS_HANDLERS]);
  const { db, close } = await openDb(options.pgUrl, options.schema);
  const stops: (() => Promise<void>)[] = [close];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e: unknown) => logger.warn("lms: stop step failed", { error: errorMessage(e) }));
  };
  try {
    await migrateLms(db, options.schema);
    const log = new PgTaskConsumeLogStore(db);
    let port = httpCallbackPort(options.taskServiceUrl);
    if (options.callbackTopic !== undefined) {
      const producer = new KafkaDeliveryPort({ brokers: options.brokers, clientId: `${owner.toLowerCase()}-callbacks`, logger });
      stops.push(() => producer.disconnect());
      port = resultTopicCallbackPort(producer, options.callbackTopic, owner);
    }
    const sender = new TaskCallbackSender({ log, port, clock: systemClock, logger });
    const callbacks = new Loop("lms callbacks", async (signal) => (await sender.step(signal)).next, { idleMs: 1_000, logger }).start();
    stops.push(() => callbacks.stop());
    const consumer = new TaskEventConsumer({
      owner,
      routing: options.routing,
      registry,
      log,
      clock: systemClock,
      logger,
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      onCallbackDue: () => callbacks.wake(),
    });
    const stats: LmsStats = { skipped: 0, duplicate: 0, succeeded: 0, dead: 0, retry: 0 };
    const running = await runTaskEventConsumer({
      kafka: kafkaClient(options.brokers, `${owner.toLowerCase()}-service`, logger),
      handler: {
        owner,
        handle: async (record, signal) => {
          const step = await consumer.handle(record, signal);
          stats[step.did] += 1;
          return step;
        },
      },
      topic: taskTopic(options.routing, owner),
      ...(options.groupId === undefined ? {} : { groupId: options.groupId }),
      logger,
    });
    stops.push(() => running.stop());
    logger.info("LMS started", { owner, groupId: running.groupId, topic: taskTopic(options.routing, owner), handlers: registry.codes });
    return { db, log, stats, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
