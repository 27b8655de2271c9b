/**
 * Topic-per-owner routing end to end (issue 36 item 10), on real PostgreSQL and Kafka: the built
 * `msgx run` hosting the task service with `tasks.routing.mode: topic-per-owner` and two owners,
 * LMS and WMS, each its own process with no msgx code (test/task-service/plain-owner.mjs: a plain
 * kafkajs consumer group on its owner's topic, callbacks over HTTP). The test plays the callers:
 * it creates tasks with the seed's body, reports them finished or cancels them over HTTP, and reads
 * what each owner was delivered. Each owner must get exactly its own tasks' events, on its own
 * topic, and its callbacks must bring every task to its final status.
 */
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropPgAndKafkaRun, gatePgAndKafka, runTagged, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { spawnScript, stopScript, type ScriptProcess } from "./script-process.js";
import { awaitTaskStatus, endTask, plainOwnerDeliveries, TASK_TOKEN, taskApi } from "./task-service/task-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const run = `h_task_tpo_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const TOPIC_PATTERN = `{owner}_TASK_EVENT_${run}`;
const OWNERS = ["LMS", "WMS"] as const;
type OwnerName = (typeof OWNERS)[number];
const topicOf = (owner: OwnerName): string => TOPIC_PATTERN.replace("{owner}", owner);
const suite = "topic-per-owner task routing: two owners with no msgx code, each on its own topic";

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const available = await gatePgAndKafka(suite, pgClient, BROKERS);

let dir: string | undefined;
let runner: RunnerProcess | undefined;
const owners = new Map<OwnerName, ScriptProcess>();
const delivered = (owner: OwnerName) => plainOwnerDeliveries(owners.get(owner));

beforeAll(async () => {
  if (!available) return;
  await pgClient.query(`CREATE SCHEMA ${run}`);
  dir = mkdtempSync(join(tmpdir(), "msgx-task-tpo-"));
  const config = join(dir, "msgx.json");
  // No dispatcher: the test reports each task's end itself, as its executing system would.
  writeFileSync(config, JSON.stringify({ tasks: { enabled: true, token: TASK_TOKEN, routing: { mode: "topic-per-owner", topicPattern: TOPIC_PATTERN }, owners: OWNERS, jobIntervalMs: 200, taskNo: { timeZone: "Asia/Shanghai" } } }));
  runner = await spawnRunner(["-c", config, "--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], runTagged(run));
  const script = fileURLToPath(new URL("./task-service/plain-owner.mjs", import.meta.url));
  for (const owner of OWNERS) {
    owners.set(owner, spawnScript(script, ["--brokers", BROKERS, "--topic", topicOf(owner), "--group", `${run}-${owner}`, "--runner", runner.url, "--token", TASK_TOKEN]));
  }
}, 120_000);

afterAll(async () => {
  for (const c of owners.values()) await stopScript(c, 10_000);
  await stopRunner(runner, suite);
  await dropPgAndKafkaRun(pgClient, BROKERS, run, suite, available);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** The seed's create body (seed 001 §3), for `owner`. */
const seedBody = (taskId: string, owner: OwnerName, n: number) => ({
  taskId,
  ownerService: owner,
  bizType: "STOCK_AREA_CALL_TUBE",
  bizId: `${owner}-BIZ-${n}`,
  handlerCode: `${owner}_STOCK_AREA_CALL_TUBE`,
  externalSystem: "ACS",
  externalTaskType: "3",
  startPointCode: `备货区起点-${n}`,
  endPointCode: `机械手旁备货区终点-${n}`,
  vehicleCode: `纸管载具号-${n}`,
  requestPayload: { to_material: "A,B,C", product_area: "BLK" },
});

describe.skipIf(!available)(suite, () => {
  it("LMS's task events reach only LMS's topic and WMS's only WMS's; both owners' callbacks finish (and cancel) every task", async () => {
    const started = Date.now();
    const tasks = OWNERS.flatMap((owner) => [1, 2, 3].map((n) => ({ owner, n, taskId: `${run}-${owner}-${n}` })));
    const numbers = new Map<string, string>();
    for (const t of tasks) {
      const answer = await taskApi(runner!.url, "POST", "/task/v1/tasks", seedBody(t.taskId, t.owner, t.n));
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body.task).toMatchObject({ taskNo: expect.stringMatching(/^T\d{8}\d{4}$/), startPointCode: `备货区起点-${t.n}`, vehicleCode: `纸管载具号-${t.n}` });
      numbers.set(t.taskId, answer.body.task.taskNo);
    }
    expect(new Set(numbers.values()).size, "every task its own number").toBe(tasks.length);
    const byNo = await taskApi(runner!.url, "GET", `/task/v1/tasks/by-no/${numbers.get(tasks[0]!.taskId)}`);
    expect(byNo.body.task?.taskId).toBe(tasks[0]!.taskId);

    // The third task of each owner is cancelled (TASK_CANCELLED), the others finish (TASK_FINISHED).
    for (const t of tasks) {
      const answer = await endTask(runner!.url, t.taskId, t.n === 3 ? "cancel" : "finish");
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    const outputs = () => `LMS:\n${owners.get("LMS")!.output()}\nWMS:\n${owners.get("WMS")!.output()}`;
    for (const t of tasks) await awaitTaskStatus(runner!.url, t.taskId, t.n === 3 ? "CANCELLED" : "FINISHED", outputs);

    for (const owner of OWNERS) {
      const mine = tasks.filter((t) => t.owner === owner);
      const got = delivered(owner);
      expect(new Set(got.map((d) => d.record.topic)), `${owner} read only its topic`).toEqual(new Set([topicOf(owner)]));
      expect(got.filter((d) => d.record.value?.ownerService !== owner || d.record.headers["msgx-owner"] !== owner), `${owner} got no other owner's event`).toEqual([]);
      const handled = got.filter((d) => d.handled);
      expect(handled.map((d) => d.record.key).sort(), `${owner} handled each of its tasks once`).toEqual(mine.map((t) => t.taskId).sort());
      expect(handled.every((d) => d.callback === 200), `${owner}'s callbacks were taken`).toBe(true);
      for (const t of mine) {
        const event = handled.find((d) => d.record.key === t.taskId)!.record.value!;
        expect(event, `${t.taskId}: the event carries the task number and the seed's fields`).toMatchObject({
          eventType: t.n === 3 ? "TASK_CANCELLED" : "TASK_FINISHED",
          taskNo: numbers.get(t.taskId),
          handlerCode: `${owner}_STOCK_AREA_CALL_TUBE`,
          startPointCode: `备货区起点-${t.n}`,
          endPointCode: `机械手旁备货区终点-${t.n}`,
          vehicleCode: `纸管载具号-${t.n}`,
          payload: { to_material: "A,B,C", product_area: "BLK" },
        });
      }
    }
    console.info(`[${suite}] ${tasks.length} tasks over two owner topics: ${Date.now() - started} ms`);
  }, 90_000);
});
