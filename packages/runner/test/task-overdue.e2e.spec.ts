/**
 * Deadlines and heartbeats end to end (issue 36 item 7), on real PostgreSQL and Kafka: the built
 * `msgx run` hosting the task service with `tasks.overdue` (a heartbeat timeout for one handler
 * code, a deadline for one business type), the executing system as its own process
 * (test/task-service/executing-system.mjs: node:http, no msgx code) and an owner with no msgx code
 * (test/task-service/plain-owner.mjs: a plain kafkajs consumer group, callbacks over HTTP). The
 * executing system takes both tasks, reports progress on one, then stops: that task's owner gets
 * TASK_OVERDUE (HEARTBEAT); the other task passes its deadline: TASK_OVERDUE (DEADLINE). Neither
 * task changes status; both are listed as overdue (HTTP and `msgx tasks list --overdue`) and
 * counted; a later progress report re-arms the heartbeat, and the tasks then end normally.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";
import { CLI, dropPgAndKafkaRun, eventually, gatePgAndKafka, runTagged, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { spawnScript, stopScript, type ScriptProcess } from "./script-process.js";
import { awaitTaskStatus, endTask, getTask, plainOwnerDeliveries, startExecutingSystem, TASK_TOKEN, taskApi, writeTaskConfig, type ExecutingSystem } from "./task-service/task-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const run = `h_task_overdue_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const EVENT_TOPIC = `TASK_EVENT_${run}`;
const HEARTBEAT_MS = 1_500;
const DEADLINE_MS = 2_000;
const suite = "task deadlines and heartbeats: TASK_OVERDUE to an owner with no msgx code";

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const available = await gatePgAndKafka(suite, pgClient, BROKERS);

let dir: string | undefined;
let runner: RunnerProcess | undefined;
let acs: ExecutingSystem | undefined;
let owner: ScriptProcess | undefined;
const delivered = () => plainOwnerDeliveries(owner);
const overdueEvents = (taskId: string): Record<string, any>[] =>
  delivered()
    .filter((d) => d.record.key === taskId && d.record.value?.eventType === "TASK_OVERDUE")
    .map((d) => d.record.value!);

beforeAll(async () => {
  if (!available) return;
  await pgClient.query(`CREATE SCHEMA ${run}`);
  acs = await startExecutingSystem();
  dir = mkdtempSync(join(tmpdir(), "msgx-task-overdue-"));
  const config = writeTaskConfig(dir, {
    routing: { topic: EVENT_TOPIC },
    owners: ["LMS"],
    dispatcher: { url: acs.url, timeoutMs: 2_000 },
    overdue: { byHandlerCode: { LMS_HEARTBEAT: { heartbeatMs: HEARTBEAT_MS } }, byBizType: { TIMED_MOVE: { deadlineMs: DEADLINE_MS } } },
    jobIntervalMs: 200,
    taskNo: { timeZone: "UTC" },
  });
  runner = await spawnRunner(["-c", config, "--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], runTagged(run));
  await acs.control({ runner: runner.url });
  owner = spawnScript(fileURLToPath(new URL("./task-service/plain-owner.mjs", import.meta.url)), ["--brokers", BROKERS, "--topic", EVENT_TOPIC, "--group", `${run}-lms`, "--runner", runner.url, "--token", TASK_TOKEN]);
}, 120_000);

afterAll(async () => {
  if (owner) await stopScript(owner, 10_000);
  await stopRunner(runner, suite);
  await acs?.stop();
  await dropPgAndKafkaRun(pgClient, BROKERS, run, suite, available);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 120_000);

const newTask = (taskId: string, handlerCode: string, bizType: string) => ({ taskId, ownerService: "LMS", handlerCode, bizType, bizId: `BIZ-${taskId}`, externalSystem: "ACS" });

/** The runner's `msgx_task_overdue_total` per reason. */
async function overdueCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(new URL("/metrics", runner!.url))).text();
  return Object.fromEntries([...text.matchAll(/^msgx_task_overdue_total\{reason="([A-Z]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/** Runs the built `msgx` CLI with the task token in its environment; its exit code, stdout and everything it wrote. */
function runCli(args: readonly string[]): Promise<{ code: number | string; stdout: string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, MSGX_TASKS_TOKEN: TASK_TOKEN } });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (d: Buffer) => ((stdout += d.toString()), (output += d.toString())));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("exit", (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, output }));
  });
}

describe.skipIf(!available)(suite, () => {
  it("progress then silence → TASK_OVERDUE (HEARTBEAT); past the deadline → TASK_OVERDUE (DEADLINE); statuses kept, listed, counted; progress re-arms; the tasks still end", async () => {
    const started = Date.now();
    const hb = `${run}-HB`;
    const dl = `${run}-DL`;
    const context = () => `owner:\n${owner!.output()}\nrunner:\n${runner!.output().slice(-4_000)}`;
    for (const body of [newTask(hb, "LMS_HEARTBEAT", "MOVE"), newTask(dl, "LMS_MOVE", "TIMED_MOVE")]) {
      const answer = await taskApi(runner!.url, "POST", "/task/v1/tasks", body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
    expect(await getTask(runner!.url, hb)).toMatchObject({ heartbeatMs: HEARTBEAT_MS, deadlineMs: null });
    expect(await getTask(runner!.url, dl)).toMatchObject({ heartbeatMs: null, deadlineMs: DEADLINE_MS });
    for (const id of [hb, dl]) await awaitTaskStatus(runner!.url, id, "DISPATCHED", context, 30_000);

    // The executing system reports progress on one task, then stops (a crash, a cut cable).
    const progress = await acs!.report(hb, "EXECUTING", { progress: "40%" });
    expect(progress.status, JSON.stringify(progress.body)).toBe(200);
    await acs!.stop();
    // On a loaded machine the dispatch alone may already have been silent too long (an earlier
    // HEARTBEAT, lastProgressAt = the dispatch): the one awaited is the silence after the report.
    const reportedAt = new Date(progress.body.task.lastProgressAt as number).toISOString();
    const afterReport = () => overdueEvents(hb).filter((e) => e.lastProgressAt === reportedAt);

    const heartbeat = await eventually(async () => afterReport()[0], 30_000, "TASK_OVERDUE (HEARTBEAT) at the owner").catch((e: unknown) => {
      throw new Error(`${String(e)}\n${context()}`);
    });
    const deadline = await eventually(async () => overdueEvents(dl)[0], 30_000, "TASK_OVERDUE (DEADLINE) at the owner").catch((e: unknown) => {
      throw new Error(`${String(e)}\n${context()}`);
    });
    const hbTask = (await getTask(runner!.url, hb))!;
    const dlTask = (await getTask(runner!.url, dl))!;
    expect([hbTask.status, dlTask.status], "no status change: the owner decides").toEqual(["EXECUTING", "DISPATCHED"]);
    expect(heartbeat).toMatchObject({
      eventType: "TASK_OVERDUE",
      overdueReason: "HEARTBEAT",
      taskId: hb,
      eventId: `${hb}#${hbTask.version}`,
      lastProgressAt: new Date(hbTask.lastProgressAt).toISOString(),
      progress: null,
      deadlineAt: null,
      handlerCode: "LMS_HEARTBEAT",
    });
    expect(Date.parse(heartbeat.occurredAt) - Date.parse(heartbeat.lastProgressAt), "reported only after the heartbeat timeout").toBeGreaterThanOrEqual(HEARTBEAT_MS);
    expect(deadline).toMatchObject({ eventType: "TASK_OVERDUE", overdueReason: "DEADLINE", taskId: dl, deadlineAt: new Date(dlTask.deadlineAt).toISOString(), bizType: "TIMED_MOVE" });
    expect(Date.parse(deadline.occurredAt)).toBeGreaterThanOrEqual(dlTask.deadlineAt);
    expect(dlTask.deadlineAt - dlTask.lastProgressAt, "the deadline counts from the dispatch").toBe(DEADLINE_MS);
    for (const event of [heartbeat, deadline]) expect(schemaErrors("task-event", event)).toEqual([]);
    const records = delivered().filter((d) => d.record.value?.eventType === "TASK_OVERDUE");
    expect(records.every((d) => d.record.headers["msgx-task-event"] === "TASK_OVERDUE" && d.record.headers["msgx-owner"] === "LMS"), "task headers").toBe(true);
    expect(records.every((d) => d.callback === null), "no callback for an overdue event").toBe(true);

    // Listed (the admin API, the console's data, the CLI through the runner) and counted.
    const listed = await taskApi(runner!.url, "GET", "/task/v1/tasks?overdue=true");
    expect(listed.body.tasks.map((t: { taskId: string }) => t.taskId).sort()).toEqual([dl, hb].sort());
    const cli = await runCli(["tasks", "list", "--overdue", "--url", runner!.url]);
    expect(cli.code, cli.output).toBe(0);
    expect(JSON.parse(cli.stdout).tasks.map((t: { taskId: string }) => t.taskId).sort()).toEqual([dl, hb].sort());
    // Everything written for a task reached its owner before its last event (one key, one partition).
    expect(await overdueCounts()).toEqual({ DEADLINE: 1, HEARTBEAT: overdueEvents(hb).length });
    expect([afterReport().length, overdueEvents(dl).length], "one event per cause and silence").toEqual([1, 1]);

    // The executing system is back and reports progress: the heartbeat is re-armed, and the next silence is reported again.
    const again = await taskApi(runner!.url, "POST", `/task/v1/tasks/${hb}/feedback`, { externalEventId: "acs-back-1", status: "EXECUTING", progress: "60%" });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const backAt = new Date(again.body.task.lastProgressAt as number).toISOString();
    const second = await eventually(async () => overdueEvents(hb).find((e) => e.lastProgressAt === backAt), 30_000, "a second TASK_OVERDUE (HEARTBEAT) after the next silence");
    expect(second).toMatchObject({ overdueReason: "HEARTBEAT", taskId: hb });
    expect(Date.parse(second.lastProgressAt)).toBeGreaterThan(Date.parse(heartbeat.lastProgressAt));

    // The owner lets one finish and cancels the other: both end normally and are no longer overdue.
    expect((await endTask(runner!.url, hb, "finish")).status).toBe(200);
    const cancel = await taskApi(runner!.url, "POST", `/task/v1/tasks/${dl}/cancel`, { reason: "overdue", requestId: `${dl}-cancel` });
    // The executing system is still down, so the cancel cannot reach it (503, nothing changed); once
    // told another way, it reports the task cancelled.
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(503);
    expect((await taskApi(runner!.url, "POST", `/task/v1/tasks/${dl}/feedback`, { externalEventId: "acs-cancelled", status: "CANCELLED", message: "overdue" })).status).toBe(200);
    await awaitTaskStatus(runner!.url, hb, "FINISHED", context);
    await awaitTaskStatus(runner!.url, dl, "CANCELLED", context);
    expect((await taskApi(runner!.url, "GET", "/task/v1/tasks?overdue=true")).body.tasks).toEqual([]);
    console.info(`[${suite}] two tasks, ${overdueEvents(hb).length + overdueEvents(dl).length} TASK_OVERDUE events, both ended: ${Date.now() - started} ms`);
  }, 120_000);
});
