/**
 * Both services in one process, then a scripted run over HTTP, then the rows of both databases:
 *
 *   pnpm --filter @msgx/example-task-routing build
 *   node examples/task-routing/dist/demo.js
 *
 * Needs PostgreSQL (MSGX_PG_URL, default postgres://postgres@127.0.0.1:5432/test) and Kafka
 * (MSGX_KAFKA_BROKERS, default 127.0.0.1:9092; `scripts/kafka start`). MSGX_TASK_ROUTING=topic-per-owner
 * switches to a topic per owner, MSGX_TASK_CALLBACK=topic sends callbacks on a result topic. The task service listens on a free port; schemas task_demo and lms_demo.
 */
import { consoleLogger } from "./lib/console-logger.js";
import { exampleConfig } from "./lib/config.js";
import { startLmsApp } from "./lib/lms-app.js";
import { runScenario, scenarioTasks } from "./lib/scenario.js";
import { startTaskServiceApp } from "./lib/task-service-app.js";

const config = exampleConfig();
const verbose = process.env["MSGX_DEMO_VERBOSE"] === "1";
const quiet = { debug() {}, info() {}, warn: consoleLogger("demo").warn, error: consoleLogger("demo").error };
const task = await startTaskServiceApp({
  pgUrl: config.pgUrl,
  schema: config.taskSchema,
  brokers: config.brokers,
  routing: config.routing,
  ...(config.callbackTopic === undefined ? {} : { callbackTopic: config.callbackTopic }),
  owners: ["LMS", "WMS"],
  port: 0,
  logger: verbose ? consoleLogger("task") : quiet,
});
// Short backoffs so the flaky handler's retries show within seconds.
const lms = await startLmsApp({
  pgUrl: config.pgUrl,
  schema: config.lmsSchema,
  brokers: config.brokers,
  routing: config.routing,
  ...(config.callbackTopic === undefined ? {} : { callbackTopic: config.callbackTopic }),
  taskServiceUrl: task.url,
  policy: { maxAttempts: 5, initialBackoffMs: 500, backoffMultiplier: 2, maxBackoffMs: 4_000, headDeadlineMs: 600_000 },
  logger: verbose ? consoleLogger("lms") : quiet,
});
let code = 1;
try {
  const report = await runScenario({ task, lms, logger: quiet });
  const expected = new Map(scenarioTasks(report.prefix).map((t) => [t.taskId, t.expect]));
  console.log(`\nrouting ${config.routing.mode}, callbacks ${config.callbackTopic ?? "HTTP"}, run ${report.prefix}, ${report.durationMs} ms\n\ntask_task (task service):`);
  for (const t of report.tasks) console.log(`  ${String(t["task_id"]).padEnd(16)} ${String(t["handler_code"]).padEnd(26)} ${String(t["status"]).padEnd(26)} ${t["callback_error"] ?? ""}\n      expected: ${expected.get(String(t["task_id"]))}`);
  console.log("\ntask_feedback:");
  for (const f of report.feedback) console.log(`  ${f["task_id"]} ${f["external_event_id"]} ${f["status"]} -> ${f["outcome"]}`);
  console.log("\nmsg_event (outbox):");
  for (const e of report.events) console.log(`  #${e["event_id"]} ${e["target"]} key ${e["partition_key"]} ${e["event_type"]} ${e["status"]}`);
  console.log("\ntask_event_consume_log (LMS):");
  for (const c of report.consumeLog) console.log(`  ${String(c["event_id"]).padEnd(18)} ${String(c["handler_code"]).padEnd(26)} ${c["status"]} attempts ${c["attempts"]} callback ${c["callback_status"]}${c["error_msg"] ? `\n      ${c["error_msg"]}` : ""}`);
  console.log("\ntask_callback (task service):");
  for (const c of report.callbacks) console.log(`  ${c["task_id"]} ${c["event_id"]} ${c["result"]} -> ${c["outcome"]}`);
  console.log("\nlms_biz_log:");
  for (const b of report.bizLog) console.log(`  ${b["task_id"]} ${b["event_type"]} ${b["detail"]}`);
  console.log(`\nLMS consumer: ${JSON.stringify(report.stats)}`);
  console.log(report.settled ? "\nOK: every LMS task handled once and reported; the redelivered event was not run again." : "\nNOT SETTLED within the time limit.");
  code = report.settled ? 0 : 1;
} finally {
  await lms.stop();
  await task.stop();
}
process.exit(code);
