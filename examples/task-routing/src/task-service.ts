/**
 * The task service on its own (PostgreSQL schema `task_demo`, HTTP on :8089, relay to Kafka):
 *
 *   node examples/task-routing/dist/task-service.js
 *
 * Environment: see `lib/config.ts` (MSGX_PG_URL, MSGX_KAFKA_BROKERS, MSGX_TASK_ROUTING, MSGX_TASK_SCHEMA,
 * MSGX_TASK_PORT). Stop with Ctrl-C.
 */
import { consoleLogger } from "./lib/console-logger.js";
import { exampleConfig } from "./lib/config.js";
import { startTaskServiceApp } from "./lib/task-service-app.js";

const config = exampleConfig();
const app = await startTaskServiceApp({
  pgUrl: config.pgUrl,
  schema: config.taskSchema,
  brokers: config.brokers,
  routing: config.routing,
  ...(config.callbackTopic === undefined ? {} : { callbackTopic: config.callbackTopic }),
  owners: ["LMS", "WMS"],
  port: config.taskPort,
  logger: consoleLogger("task"),
});
console.log(`task service on ${app.url} (schema ${config.taskSchema}, routing ${config.routing.mode})`);
const shutdown = () => {
  void app.stop().then(() => process.exit(0));
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
