/**
 * The LMS owner service on its own (PostgreSQL schema `lms_demo`, consumer group `LMS-task-events`,
 * callbacks to the task service over HTTP):
 *
 *   node examples/task-routing/dist/lms-service.js
 *
 * Environment: see `lib/config.ts` (MSGX_PG_URL, MSGX_KAFKA_BROKERS, MSGX_TASK_ROUTING, MSGX_LMS_SCHEMA,
 * MSGX_TASK_URL). Stop with Ctrl-C.
 */
import { consoleLogger } from "./lib/console-logger.js";
import { exampleConfig } from "./lib/config.js";
import { startLmsApp } from "./lib/lms-app.js";

const config = exampleConfig();
const app = await startLmsApp({
  pgUrl: config.pgUrl,
  schema: config.lmsSchema,
  brokers: config.brokers,
  routing: config.routing,
  ...(config.callbackTopic === undefined ? {} : { callbackTopic: config.callbackTopic }),
  taskServiceUrl: config.taskServiceUrl,
  logger: consoleLogger("lms"),
});
console.log(`LMS consuming its task events (schema ${config.lmsSchema}), calling back ${config.taskServiceUrl}`);
const shutdown = () => {
  void app.stop().then(() => process.exit(0));
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
