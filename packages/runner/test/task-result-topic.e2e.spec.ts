/**
 * The owner's callback over a result topic, hosted by `msgx run` (issue 36 item 8), on real
 * PostgreSQL and Kafka: the built runner with `tasks.callback.resultTopic`, and an owner with no
 * msgx code (test/task-service/plain-owner.mjs with `--result-topic`: a plain kafkajs consumer of
 * the task topic that reports each FINISHED / CANCELLED event as a `TaskCallbackMessage` record
 * with a plain kafkajs producer, never over HTTP). Malformed records and one for an unknown task
 * are put on the result topic first, in the partition of a task's callback: they are skipped and
 * counted, and every task still ends FINISHED or CANCELLED.
 */
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import kafkajs from "kafkajs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropPgAndKafkaRun, eventually, gatePgAndKafka, runTagged, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { spawnScript, stopScript, type ScriptProcess } from "./script-process.js";
import { awaitTaskStatus, endTask, TASK_TOKEN, taskApi } from "./task-service/task-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const run = `h_task_result_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const EVENT_TOPIC = `TASK_EVENT_${run}`;
const RESULT_TOPIC = `TASK_RESULT_${run}`;
const suite = "owner callbacks over a result topic, consumed by msgx run";

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const available = await gatePgAndKafka(suite, pgClient, BROKERS);

let dir: string | undefined;
let runner: RunnerProcess | undefined;
let owner: ScriptProcess | undefined;
const kafka = new kafkajs.Kafka({ clientId: run, brokers: BROKERS.split(","), logLevel: kafkajs.logLevel.NOTHING });

beforeAll(async () => {
  if (!available) return;
  await pgClient.query(`CREATE SCHEMA ${run}`);
  dir = mkdtempSync(join(tmpdir(), "msgx-task-result-"));
  const config = join(dir, "msgx.json");
  // No dispatcher: the test reports each task's end itself, as its executing system would.
  writeFileSync(
    config,
    JSON.stringify({
      tasks: { enabled: true, token: TASK_TOKEN, routing: { topic: EVENT_TOPIC }, owners: ["LMS"], callback: { resultTopic: RESULT_TOPIC, groupId: `${run}-callbacks` }, jobIntervalMs: 200, taskNo: { timeZone: "UTC" } },
    }),
  );
  runner = await spawnRunner(["-c", config, "--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], runTagged(run));
}, 120_000);

afterAll(async () => {
  if (owner) await stopScript(owner, 10_000);
  await stopRunner(runner, suite);
  await dropPgAndKafkaRun(pgClient, BROKERS, run, suite, available);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 120_000);

const newTask = (taskId: string, n: number) => ({ taskId, ownerService: "LMS", bizType: "CALL", bizId: `LMS-BIZ-${n}`, handlerCode: "LMS_CALL", externalSystem: "ACS" });

/** The runner's `msgx_task_callback_records_total` per outcome. */
async function recordCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(new URL("/metrics", runner!.url))).text();
  return Object.fromEntries([...text.matchAll(/^msgx_task_callback_records_total\{outcome="([a-z-]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

describe.skipIf(!available)(suite, () => {
  it("the owner's result-topic callbacks finish and cancel its tasks; malformed and unknown-task records are skipped, not fatal", async () => {
    const started = Date.now();
    const tasks = [1, 2, 3].map((n) => ({ n, taskId: `${run}-T-${n}` }));
    // The runner creates the result topic when its consumer starts; the bad records go first, keyed as task 1's callback will be.
    const admin = kafka.admin();
    await admin.connect();
    await eventually(async () => ((await admin.listTopics()).includes(RESULT_TOPIC) ? true : undefined), 30_000, "the result topic, created by the runner");
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const key = tasks[0]!.taskId;
    await producer.send({
      topic: RESULT_TOPIC,
      acks: -1,
      messages: [
        { key, value: "not json {" },
        { key, value: JSON.stringify({ schemaVersion: 1, taskId: key, eventId: `${key}#1`, result: "MAYBE" }) },
        { key, value: JSON.stringify({ schemaVersion: 1, taskId: `${run}-nope`, eventId: `${run}-nope#1`, result: "SUCCESS", message: null, ownerService: "LMS" }) },
      ],
    });
    await producer.disconnect();

    const script = fileURLToPath(new URL("./task-service/plain-owner.mjs", import.meta.url));
    owner = spawnScript(script, ["--brokers", BROKERS, "--topic", EVENT_TOPIC, "--group", `${run}-LMS`, "--runner", runner!.url, "--token", TASK_TOKEN, "--result-topic", RESULT_TOPIC, "--owner", "LMS"]);
    for (const t of tasks) expect((await taskApi(runner!.url, "POST", "/task/v1/tasks", newTask(t.taskId, t.n))).status).toBe(201);
    // The third is cancelled (TASK_CANCELLED), the others finish (TASK_FINISHED).
    for (const t of tasks) {
      const answer = await endTask(runner!.url, t.taskId, t.n === 3 ? "cancel" : "finish");
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    const outputs = () => `owner:\n${owner!.output()}\nrunner:\n${runner!.output().slice(-5_000)}`;
    for (const t of tasks) await awaitTaskStatus(runner!.url, t.taskId, t.n === 3 ? "CANCELLED" : "FINISHED", outputs, 30_000);
    const callbacks = owner.lines.filter((l): l is { record: { key: string }; callback: unknown } => typeof l === "object" && l !== null && "record" in l);
    expect(new Set(callbacks.map((c) => c.callback)), "every callback went over the topic, none over HTTP").toEqual(new Set(["sent"]));
    const detail = (await taskApi(runner!.url, "GET", `/task/v1/tasks/${tasks[0]!.taskId}`)).body;
    expect(detail.callbacks.map((c: { outcome: string }) => c.outcome)).toEqual(["APPLIED"]);
    expect(await recordCounts()).toEqual({ applied: 3, malformed: 2, "unknown-task": 1, rejected: 0 });
    console.info(`[${suite}] ${tasks.length} tasks, their callbacks over ${RESULT_TOPIC}: ${Date.now() - started} ms`);
  }, 90_000);
});
