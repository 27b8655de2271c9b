// An owner service (the seed's LMS) written with the msgx SDK as docs/task-routing.md tells an owner
// to: @msgx/core's TaskEventConsumer and TaskCallbackSender, @msgx/adapters-pg's consume log in the
// owner's own schema, @msgx/adapters-kafka's runTaskEventConsumer, and its callbacks over HTTP to the
// task service `msgx run` hosts. Runs on the built packages (as a service would install them).
//
//   node owner.mjs --pg URL --schema S --brokers B --topic-pattern P --group G --owner O
//                  --runner URL --token T [--max-attempts N] [--lose-first-callback SUFFIX]
//
// Handlers (the business rows go through the consume log's transaction, so they commit with it):
//   E2E_MOVE   writes one owner_effect row per event (FINISHED, CANCELLED and EXECUTING);
//   E2E_FLAKY  the same, but throws while owner_switch says it fails (the test flips the row with
//              SQL: `UPDATE owner_switch SET failing = false WHERE handler_code = 'E2E_FLAKY'`).
// Failures retry after 200 ms doubling to 1 s, --max-attempts tries in all (default 3), then DEAD:
// the callback sender reports FAILURE. Callbacks go to POST <runner>/task/v1/callbacks; the first
// report of a task whose id ends with --lose-first-callback is lost on the way (the sender is told it
// arrived, the task service never gets it: an answer from a proxy that then failed), so only the task
// service's watchdog redelivering the event gets it reported again.
//
// Prints {"ready": true} once it consumes, then one JSON line per record handled:
//   {"step": {did, eventId, reason?}, "record": {key, eventType, headers, value}} (value: the record's text)
// one per callback step that sent or gave up: {"callbacks": {sent, deferred, rejected}}, and
// {"lost": <callback>} for a report lost on purpose.
import { createPgStores } from "@msgx/adapters-pg";
import { ensureTaskTopics, runTaskEventConsumer } from "@msgx/adapters-kafka/tasks";
import { kafkajsLogCreator } from "@msgx/adapters-kafka";
import { PgTaskConsumeLogStore, taskConsumeLogMigration } from "@msgx/adapters-pg/tasks";
import { MsgxError, errorMessage, systemClock } from "@msgx/core";
import { TaskCallbackSender, TaskEventConsumer, TaskHandlerRegistry, taskTopic } from "@msgx/tasks";
import kafkajs from "kafkajs";
import { sql } from "kysely";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const schema = arg("schema");
const owner = arg("owner");
const routing = { mode: "topic-per-owner", topicPattern: arg("topic-pattern") };
const runner = arg("runner");
const token = arg("token");
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (msg, fields) => process.stderr.write(`warn ${msg} ${JSON.stringify(fields ?? {})}\n`),
  error: (msg, fields) => process.stderr.write(`error ${msg} ${JSON.stringify(fields ?? {})}\n`),
};

const { db, close } = await createPgStores({ connectionString: arg("pg"), schema, max: 4, migrate: false, applicationName: `msgx-e2e-owner-${owner}` });
await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
await db.transaction().execute(async (trx) => {
  await sql`SET LOCAL search_path TO ${sql.id(schema)}`.execute(trx);
  const { rows } = await sql`SELECT to_regclass('task_event_consume_log')::text AS t`.execute(trx);
  if (rows[0]?.t == null) await taskConsumeLogMigration(schema).up(trx);
  await sql`CREATE TABLE IF NOT EXISTS owner_effect (
    event_id     text PRIMARY KEY,
    task_id      text NOT NULL,
    event_type   text NOT NULL,
    handler_code text NOT NULL,
    attempt      integer NOT NULL,
    reason       text,
    progress     text
  )`.execute(trx);
  await sql`CREATE TABLE IF NOT EXISTS owner_switch (handler_code text PRIMARY KEY, failing boolean NOT NULL)`.execute(trx);
  await sql`INSERT INTO owner_switch VALUES ('E2E_FLAKY', true) ON CONFLICT DO NOTHING`.execute(trx);
});

/** The business effect of one event: one row, in the consume log's transaction. */
async function effect(event, ctx) {
  await sql`INSERT INTO owner_effect (event_id, task_id, event_type, handler_code, attempt, reason, progress)
            VALUES (${event.eventId}, ${event.taskId}, ${event.eventType}, ${event.handlerCode}, ${ctx.attempt}, ${event.reason}, ${event.progress ?? null})`.execute(ctx.tx);
}
async function flaky(event, ctx) {
  const { rows } = await sql`SELECT failing FROM owner_switch WHERE handler_code = 'E2E_FLAKY'`.execute(ctx.tx);
  if (rows[0]?.failing !== false) throw new Error(`E2E_FLAKY is switched to fail (attempt ${ctx.attempt})`);
  await effect(event, ctx);
}
const handler = (handlerCode, run) => ({ handlerCode, onTaskFinished: run, onTaskCancelled: run, onTaskExecuting: run });
const registry = new TaskHandlerRegistry([handler("E2E_MOVE", effect), handler("E2E_FLAKY", flaky)]);

const loseSuffix = arg("lose-first-callback");
const lost = new Set();

/** TaskCallbackPort over HTTP, as the port's JSDoc asks: 2xx recorded, 4xx for good, else retried. */
const callbackPort = {
  async report(callback, signal) {
    if (loseSuffix !== undefined && callback.taskId.endsWith(loseSuffix) && !lost.has(callback.taskId)) {
      lost.add(callback.taskId);
      return print({ lost: callback });
    }
    let res;
    try {
      res = await fetch(new URL("/task/v1/callbacks", runner), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(callback),
        signal: AbortSignal.any([AbortSignal.timeout(5_000), ...(signal ? [signal] : [])]),
      });
    } catch (e) {
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", `task service is unavailable: ${errorMessage(e)}`, { cause: e });
    }
    const text = (await res.text()).slice(0, 500);
    if (res.status >= 200 && res.status < 300) return;
    if (res.status >= 400 && res.status < 500) throw new MsgxError("PROTOCOL", `task service refused the callback (${res.status}): ${text}`, { retriable: false });
    throw new MsgxError("DEPENDENCY_UNAVAILABLE", `task service answered ${res.status}: ${text}`);
  },
};

const log = new PgTaskConsumeLogStore(db);
const sender = new TaskCallbackSender({ log, port: callbackPort, clock: systemClock, logger }, { initialBackoffMs: 200, maxBackoffMs: 2_000 });
let stopping = false;
let wake = () => undefined;
const callbacks = (async () => {
  while (!stopping) {
    let next = null;
    try {
      const step = await sender.step();
      if (step.sent.length + step.rejected.length + step.deferred.length > 0) print({ callbacks: { sent: step.sent, deferred: step.deferred, rejected: step.rejected } });
      next = step.next;
    } catch (e) {
      logger.warn("callback step failed", { error: errorMessage(e) });
    }
    const wait = next === null ? 200 : Math.min(200, Math.max(0, next - Date.now()));
    if (wait > 0) await new Promise((r) => ((wake = r), setTimeout(r, wait)));
  }
})();

const consumer = new TaskEventConsumer({
  owner,
  routing,
  registry,
  log,
  clock: systemClock,
  logger,
  policy: { maxAttempts: Number(arg("max-attempts", "3")), initialBackoffMs: 200, backoffMultiplier: 2, maxBackoffMs: 1_000, headDeadlineMs: 600_000 },
  onCallbackDue: () => wake(),
});
const kafka = new kafkajs.Kafka({ clientId: `e2e-${owner}`, brokers: arg("brokers").split(","), connectionTimeout: 3_000, logLevel: kafkajs.logLevel.WARN, logCreator: kafkajsLogCreator(logger) });
const topic = taskTopic(routing, owner);
const admin = kafka.admin();
await admin.connect();
await ensureTaskTopics(admin, { topics: [topic], partitions: 3 });
await admin.disconnect();
const running = await runTaskEventConsumer({
  kafka,
  handler: {
    owner,
    handle: async (record, signal) => {
      const step = await consumer.handle(record, signal);
      print({ step, record: { key: record.key, eventType: record.headers["msgx-task-event"] ?? null, headers: record.headers, value: record.value } });
      return step;
    },
  },
  topic,
  groupId: arg("group"),
  logger,
});
print({ ready: true });

process.on("SIGTERM", () => {
  stopping = true;
  wake();
  void (async () => {
    await running.stop().catch(() => undefined);
    await callbacks;
    await close().catch(() => undefined);
    process.exit(0);
  })();
});
