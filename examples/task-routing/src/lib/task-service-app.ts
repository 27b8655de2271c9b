import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KafkaDeliveryPort } from "@msgx/adapters-kafka";
import { PgOutboxStore } from "@msgx/adapters-pg";
import { errorMessage, isMsgxError, isOutage, MsgDispatcher, MsgxError, silentLogger, systemClock, type Logger } from "@msgx/core";
import type { Kysely } from "kysely";
import { CALLBACK_ROUTE } from "./http-callback-port.js";
import { HttpError, readJson, sendJson } from "./http.js";
import { kafkaClient } from "./kafka.js";
import { Loop } from "./loop.js";
import { migrateTaskService, openDb } from "./pg.js";
import {
  ensureTaskTopics,
  isTaskRequestError,
  parseTaskCallbackMessage,
  PgTaskStore,
  runTaskCallbackConsumer,
  taskDeliveryTopics,
  taskTargets,
  taskTopics,
  TaskService,
  type NewTask,
  type TaskCallback,
  type TaskFeedback,
  type TaskRouting,
} from "./task-routing.js";

export interface TaskServiceAppOptions {
  readonly pgUrl: string;
  readonly schema: string;
  readonly brokers: readonly string[];
  readonly routing: TaskRouting;
  /** The owner services whose topics the relay needs (all of them in `topic-per-owner` mode). */
  readonly owners: readonly string[];
  /** HTTP port; 0 picks a free one. */
  readonly port: number;
  readonly host?: string;
  /**
   * When set, owners report on this result topic (seed 001 §9.2) and the task service consumes it;
   * the HTTP callback route keeps working either way.
   */
  readonly callbackTopic?: string;
  /** Partitions of the task topics when they are created (default 3). */
  readonly partitions?: number;
  readonly logger?: Logger;
}

/** Fault hooks for demonstrations and tests: the next callbacks fail as a flaky network would make them. */
export interface CallbackFaults {
  /** Answer 503 without recording (the owner retries). */
  refuseNextCallbacks: number;
  /** Record, then answer 503 as if the answer were lost (the owner retries: a harmless duplicate). */
  loseNextCallbackResponses: number;
}

export interface TaskServiceApp {
  readonly url: string;
  readonly service: TaskService;
  readonly store: PgTaskStore;
  readonly db: Kysely<any>;
  readonly faults: CallbackFaults;
  stop(): Promise<void>;
}

/**
 * The task service (seed 001 §5): PostgreSQL tables and outbox, the relay (one `MsgDispatcher`
 * per task target over the Kafka producer; the owner header is stored on each outbox row), and an
 * HTTP API:
 *
 * - `POST /rpc-api/task/create` — an owner creates a task (`NewTask`);
 * - `POST /rpc-api/task/dispatched` — `{ taskId, externalTaskNo }` once the AGV system took it;
 * - `POST /rpc-api/task/feedback` — the AGV system's feedback (`TaskFeedback`; idempotent);
 * - `POST /rpc-api/task/callback-result` — the owner's callback (`TaskCallback`; repeat-safe);
 * - `GET /rpc-api/task/<taskId>` — the task.
 */
export async function startTaskServiceApp(options: TaskServiceAppOptions): Promise<TaskServiceApp> {
  const logger = options.logger ?? silentLogger;
  const { routing, owners } = options;
  const { db, close } = await openDb(options.pgUrl, options.schema);
  const stops: (() => Promise<void>)[] = [close];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e: unknown) => logger.warn("task service: stop step failed", { error: errorMessage(e) }));
  };
  try {
    await migrateTaskService(db, options.schema);
    const admin = kafkaClient(options.brokers, "task-service-admin", logger).admin();
    await admin.connect();
    try {
      const callbackTopics = options.callbackTopic === undefined ? [] : [options.callbackTopic];
      await ensureTaskTopics(admin, { topics: [...taskTopics(routing, owners), ...callbackTopics], partitions: options.partitions ?? 3 });
    } finally {
      await admin.disconnect();
    }

    const store = new PgTaskStore(db);
    // topic-per-owner: the service refuses tasks of owners the relay has no target for.
    const known: TaskRouting = routing.mode === "topic-per-owner" && routing.owners === undefined ? { ...routing, owners } : routing;
    const service = new TaskService({ store, clock: systemClock, routing: known, logger });
    const producer = new KafkaDeliveryPort({ brokers: options.brokers, clientId: "task-service", logger });
    stops.push(() => producer.disconnect());
    const outbox = new PgOutboxStore(db);
    const topics = taskDeliveryTopics(routing, owners);
    const relays = taskTargets(routing, owners).map((target) => {
      const dispatcher = new MsgDispatcher({ outbox, delivery: producer, clock: systemClock, logger }, { target, topics, batchSize: 50 });
      return new Loop(`relay ${target}`, async (signal) => (await dispatcher.step(signal)).next, { idleMs: 500, logger }).start();
    });
    stops.push(async () => {
      await Promise.all(relays.map((r) => r.stop()));
    });

    if (options.callbackTopic !== undefined) {
      const results = await runTaskCallbackConsumer({
        kafka: kafkaClient(options.brokers, "task-service-callbacks", logger),
        topic: options.callbackTopic,
        groupId: `${options.callbackTopic}-task-service`,
        logger,
        onRecord: async (value) => {
          try {
            await service.callback(parseTaskCallbackMessage(value));
          } catch (e) {
            if (isTaskRequestError(e)) throw new MsgxError("PROTOCOL", e.message, { retriable: false });
            throw e;
          }
        },
      });
      stops.push(() => results.stop());
    }

    const faults: CallbackFaults = { refuseNextCallbacks: 0, loseNextCallbackResponses: 0 };
    const server = createServer((req, res) => {
      route(req, res).catch((e: unknown) => answerError(res, e, logger));
    });
    async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const path = new URL(req.url ?? "/", "http://task-service").pathname;
      if (req.method === "GET" && path.startsWith("/rpc-api/task/")) {
        const task = await service.get(decodeURIComponent(path.slice("/rpc-api/task/".length)));
        return task === undefined ? sendJson(res, 404, { error: "no such task" }) : sendJson(res, 200, task);
      }
      if (req.method !== "POST") throw new HttpError(405, "POST only");
      const body = await readJson(req);
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "body must be a JSON object");
      switch (path) {
        case "/rpc-api/task/create": {
          const { created, task } = await service.create(body as NewTask);
          return sendJson(res, created ? 201 : 200, { created, task });
        }
        case "/rpc-api/task/dispatched": {
          const b = body as { taskId: string; externalTaskNo: string };
          return sendJson(res, 200, await service.markDispatched(b.taskId, b.externalTaskNo));
        }
        case "/rpc-api/task/feedback": {
          const answer = await service.feedback(body as TaskFeedback);
          if (answer.entry.eventId !== null) for (const r of relays) r.wake();
          return sendJson(res, 200, { outcome: answer.entry.outcome, duplicate: answer.duplicate, reason: answer.entry.reason, status: answer.task.status, eventId: answer.entry.eventId });
        }
        case CALLBACK_ROUTE: {
          if (faults.refuseNextCallbacks > 0) {
            faults.refuseNextCallbacks -= 1;
            return sendJson(res, 503, { error: "simulated: unavailable" });
          }
          const answer = await service.callback(body as TaskCallback);
          if (faults.loseNextCallbackResponses > 0) {
            faults.loseNextCallbackResponses -= 1;
            res.destroy();
            return;
          }
          const status = answer.entry.outcome === "REJECTED" ? 409 : 200;
          return sendJson(res, status, { outcome: answer.entry.outcome, reason: answer.entry.reason, status: answer.task.status });
        }
        default:
          throw new HttpError(404, `no route ${path}`);
      }
    }
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
    });
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const address = server.address() as AddressInfo;
    const url = `http://${options.host ?? "127.0.0.1"}:${address.port}`;
    logger.info("task service started", { url, schema: options.schema, routing: routing.mode, topics: taskTopics(routing, owners) });
    return { url, service, store, db, faults, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

function answerError(res: ServerResponse, e: unknown, logger: Logger): void {
  if (res.headersSent || res.destroyed) return;
  if (e instanceof HttpError) return sendJson(res, e.status, { error: e.message });
  if (isTaskRequestError(e)) return sendJson(res, e.code === "INVALID" ? 400 : e.code === "NOT_FOUND" ? 404 : 409, { error: e.message, code: e.code });
  if (isOutage(e) || (isMsgxError(e) && e.retriable)) return sendJson(res, 503, { error: errorMessage(e) });
  logger.error("task service: request failed", { error: errorMessage(e) });
  sendJson(res, 500, { error: errorMessage(e) });
}
