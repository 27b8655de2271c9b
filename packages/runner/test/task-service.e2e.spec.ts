/**
 * The task service hosted by `msgx run` (issue 21), on real PostgreSQL and Kafka, with the owner and
 * the executing system as separate processes talking HTTP: the built runner with `tasks.enabled` in
 * topic-per-owner mode; the owner service LMS (test/task-service/owner.mjs: the msgx SDK's
 * TaskEventConsumer over its own consume log in its own schema, kafkajs, callbacks over HTTP); and
 * the executing system (test/task-service/executing-system.mjs: node:http answering the dispatcher,
 * fetch posting feedback). The test only creates and cancels tasks, steers the executing system, and
 * reads the three sides: the task service's API, what the owner handled, and the owner's rows.
 *
 * Short timings so each flow runs in seconds: the jobs every 200 ms, dispatch retried from 300 ms
 * doubling to 1 s, the watchdog alerting on a task pending its owner's callback for 2 s (and again
 * every 2 s), the owner's handler 3 tries 200 ms apart doubling.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropKafkaRun, eventually, gatePgAndKafka, runCli, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";
import { metric } from "./reliable-service/rm-processes.js";
import { getTask, startExecutingSystem, startOwner, TASK_TOKEN, taskApi, writeTaskConfig, type ExecutingSystem, type Owner } from "./task-service/task-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const run = `tasksvc_${process.pid}_${Date.now() % 100_000}`;
const ownerSchema = `${run}_lms`;
const OWNER = "LMS";
const TOPIC_PATTERN = `{owner}_TASK_EVENT_${run}`;
/** The watchdog's alert and retry period (`tasks.watchdog`). */
const WATCHDOG_MS = 2_000;
/** The owner loses the first callback of a task whose id ends so (owner.mjs --lose-first-callback). */
const LOST = "-lost-callback";
const suite = "task service over HTTP on PostgreSQL and Kafka, owner and executing system in their own processes";

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const available = await gatePgAndKafka(suite, pgClient, BROKERS);

const dirs: string[] = [];
let runner: RunnerProcess | undefined;
let acs: ExecutingSystem | undefined;
let owner: Owner | undefined;

beforeAll(async () => {
  if (!available) return;
  await pgClient.query(`CREATE SCHEMA ${run}`);
  acs = await startExecutingSystem();
  const dir = mkdtempSync(join(tmpdir(), "msgx-task-svc-"));
  dirs.push(dir);
  const config = writeTaskConfig(dir, {
    routing: { mode: "topic-per-owner", topicPattern: TOPIC_PATTERN },
    owners: [OWNER],
    dispatcher: { url: acs.url, timeoutMs: 2_000 },
    dispatchRetry: { initialMs: 300, maxMs: 1_000 },
    watchdog: { pendingCallbackAlertMs: WATCHDOG_MS, pendingCallbackRetryMs: WATCHDOG_MS },
    jobIntervalMs: 200,
  });
  runner = await spawnRunner(["-c", config, "--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], {
    MSGX_PG_SCHEMA: run,
    MSGX_KAFKA_MSG_TOPIC: `msg_${run}`,
    MSGX_KAFKA_SCHD_TOPIC: `schd_${run}`,
    MSGX_KAFKA_REF_TOPIC: `ref_${run}`,
  });
  await acs.control({ runner: runner.url });
  owner = await startOwner({ pgUrl: PG_URL, schema: ownerSchema, brokers: BROKERS, topicPattern: TOPIC_PATTERN, group: `${run}-lms`, owner: OWNER, runner: runner.url, loseFirstCallbackOf: LOST });
}, 120_000);

afterAll(async () => {
  await owner?.stop();
  await stopRunner(runner, suite);
  await acs?.stop();
  if (available) {
    for (const s of [run, ownerSchema]) await pgClient.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => undefined);
    await dropKafkaRun(BROKERS, run).catch((e: unknown) => console.warn(`[${suite}] topics or groups of ${run} left behind:`, e));
  }
  await pgClient.end().catch(() => undefined);
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
}, 120_000);

type Task = Record<string, any>;

const newTask = (taskId: string, handlerCode = "E2E_MOVE", ownerService = OWNER) => ({
  taskId,
  ownerService,
  handlerCode,
  bizType: "TUBE_MOVE",
  bizId: `biz-${taskId}`,
  externalSystem: "ACS",
  externalTaskType: "3",
  startPointCode: "A01",
  endPointCode: "B07",
  vehicleCode: "V12",
  payload: { to_material: "A,B" },
});

async function create(taskId: string, handlerCode?: string): Promise<void> {
  const answer = await taskApi(runner!.url, "POST", "/task/v1/tasks", newTask(taskId, handlerCode));
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

/** Waits until the task service's view of `taskId` satisfies `ok`; returns it. */
function waitTask(taskId: string, ok: (t: Task) => boolean, what: string, timeoutMs = 30_000): Promise<Task> {
  return eventually(
    async () => {
      const t = await getTask(runner!.url, taskId);
      return t !== undefined && ok(t) ? t : undefined;
    },
    timeoutMs,
    `${taskId} ${what}`,
  ).catch(async (e: unknown) => {
    throw new Error(`${String(e)}; last seen ${JSON.stringify(await getTask(runner!.url, taskId))}`);
  });
}

interface ConsumeRow {
  readonly event_id: string;
  readonly event_type: string;
  readonly status: string;
  readonly attempts: number;
  readonly error_msg: string | null;
  readonly callback_status: string | null;
}

/** The owner's consume log rows of a task (its own schema, read with SQL as an operator would). */
async function consumeRows(taskId: string): Promise<ConsumeRow[]> {
  const { rows } = await pgClient.query<ConsumeRow>(
    `SELECT event_id, event_type, status, attempts, error_msg, callback_status FROM ${ownerSchema}.task_event_consume_log WHERE task_id = $1 ORDER BY event_id`,
    [taskId],
  );
  return rows;
}

/**
 * The owner's TASK_FINISHED row once its callback is marked: the owner marks it after the callback
 * call returned, so after the task service already shows the task FINISHED.
 */
function callbackMarked(taskId: string): Promise<ConsumeRow> {
  return eventually(async () => (await consumeRows(taskId)).find((r) => r.event_type === "TASK_FINISHED" && r.callback_status !== "PENDING"), 30_000, `${taskId}: the TASK_FINISHED callback marked`);
}

/** The owner's business rows of a task: one per event its handler committed. */
async function effects(taskId: string): Promise<{ event_id: string; event_type: string; reason: string | null; progress: string | null }[]> {
  const { rows } = await pgClient.query(`SELECT event_id, event_type, reason, progress FROM ${ownerSchema}.owner_effect WHERE task_id = $1 ORDER BY event_id`, [taskId]);
  return rows;
}

const timed = async (name: string, flow: () => Promise<void>): Promise<void> => {
  const started = Date.now();
  await flow();
  console.info(`[${suite}] ${name}: ${Date.now() - started} ms`);
};

describe.skipIf(!available)(suite, () => {
  it("create → dispatched over HTTP → EXECUTING (TASK_EXECUTING at the owner) → FINISHED → callback → FINISHED", () =>
    timed("happy path", async () => {
      const id = `${run}-happy`;
      const created = await taskApi(runner!.url, "POST", "/task/v1/tasks", newTask(id));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const taskNo: string = created.body.task.taskNo;
      expect(taskNo).toMatch(/^T\d{8}\d{4,}$/);
      const repeat = await taskApi(runner!.url, "POST", "/task/v1/tasks", newTask(id));
      expect([repeat.status, repeat.body.task.taskNo], "a repeated create: same task, same number").toEqual([200, taskNo]);
      expect((await taskApi(runner!.url, "GET", `/task/v1/tasks/by-no/${taskNo}`)).body.task.taskId).toBe(id);

      const dispatched = await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched");
      const calls = (await acs!.calls()).filter((c) => c.op === "dispatch" && c.taskId === id);
      expect(calls.map((c) => c.status)).toEqual([200]);
      expect(dispatched.externalTaskNo).toBe(calls[0]!.externalTaskNo);
      expect(calls[0]!.idempotencyKey, "the dispatcher's idempotency key is the task id").toBe(id);
      expect(calls[0]!.body).toMatchObject({ taskId: id, taskNo, externalSystem: "ACS", externalTaskType: "3", bizType: "TUBE_MOVE", bizId: `biz-${id}`, startPointCode: "A01", endPointCode: "B07", vehicleCode: "V12", payload: { to_material: "A,B" } });

      const executing = await acs!.report(id, "EXECUTING", { progress: "vehicle V12 at A01" });
      expect(executing.status, JSON.stringify(executing.body)).toBe(200);
      await waitTask(id, (t) => t.status === "EXECUTING", "executing");
      await eventually(async () => ((await effects(id)).some((e) => e.event_type === "TASK_EXECUTING") ? true : undefined), 30_000, "the owner's TASK_EXECUTING effect");
      const execRow = (await consumeRows(id)).find((r) => r.event_type === "TASK_EXECUTING");
      expect(execRow).toMatchObject({ status: "SUCCEEDED" });
      expect(["PENDING", "SENT"], "no callback is expected for TASK_EXECUTING").not.toContain(execRow!.callback_status);
      expect((await getTask(runner!.url, id))!.status, "a progress event changes nothing").toBe("EXECUTING");

      const finished = await acs!.report(id, "FINISHED", { message: "delivered at B07" });
      expect(finished.status, JSON.stringify(finished.body)).toBe(200);
      const final = await waitTask(id, (t) => t.status === "FINISHED", "finished after the owner's callback");
      const fx = await effects(id);
      expect(fx.map((e) => e.event_type).sort()).toEqual(["TASK_EXECUTING", "TASK_FINISHED"]);
      expect(fx.find((e) => e.event_type === "TASK_EXECUTING")?.progress, "the progress reached the owner").toBe("vehicle V12 at A01");
      expect(fx.find((e) => e.event_type === "TASK_FINISHED")?.reason, "the feedback's message reached the owner").toBe("delivered at B07");
      // The consumer marks its callback SENT once the callback call returned, after the task became FINISHED.
      const finRow = await callbackMarked(id);
      expect(finRow).toMatchObject({ status: "SUCCEEDED", callback_status: "SENT", event_id: final.lastEventId });

      const seen = owner!.of(id).filter((s) => s.step.did === "succeeded");
      expect(seen.map((s) => s.record.eventType), "per-key order on the owner's topic").toEqual(["TASK_EXECUTING", "TASK_FINISHED"]);
      // Both values as read from the topic, the progress event's too, are task events of the published schema.
      for (const s of seen) expect(schemaErrors("task-event", s.record.value), s.record.eventType ?? "").toEqual([]);
      expect(seen[0]!.record.headers["msgx-owner"]).toBe(OWNER);
      expect(JSON.parse(seen[1]!.record.value!), "the event carries the task number and the places").toMatchObject({ taskNo, startPointCode: "A01", endPointCode: "B07", vehicleCode: "V12" });
      expect(owner!.steps().every((s) => s.step.did !== "skipped"), "topic per owner: the owner reads only its own records").toBe(true);

      const again = await acs!.report(id, "FINISHED", { message: "delivered at B07 (repeat)" });
      expect(again.status, "a late repeat of the fact is answered, not an error").toBe(200);
      expect((await getTask(runner!.url, id))!.status).toBe("FINISHED");
    }), 90_000);

  it("cancel before dispatch (the executing system answers 503): CREATED → CANCEL_PENDING_CALLBACK → callback → CANCELLED, never dispatched", () =>
    timed("cancel before dispatch", async () => {
      const id = `${run}-cancel-early`;
      await acs!.control({ unavailable: { [id]: true } });
      await create(id);
      await eventually(async () => ((await acs!.calls()).some((c) => c.taskId === id && c.status === 503) ? true : undefined), 30_000, "a refused dispatch attempt");
      expect((await getTask(runner!.url, id))!.status).toBe("CREATED");

      const cancel = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/cancel`, { reason: "operator called it off", requestId: `${id}-r1` });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      expect(["CANCEL_PENDING_CALLBACK", "CANCELLED"]).toContain((await getTask(runner!.url, id))!.status);
      await acs!.control({ unavailable: { [id]: false } });
      await waitTask(id, (t) => t.status === "CANCELLED", "cancelled after the owner's callback");
      const fx = await effects(id);
      expect(fx.map((e) => e.event_type)).toEqual(["TASK_CANCELLED"]);
      expect(fx[0]!.reason).toContain("operator called it off");

      const repeat = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/cancel`, { reason: "operator called it off", requestId: `${id}-r1` });
      expect(repeat.status, "cancel is idempotent").toBe(200);
      // Several job periods and the whole dispatch backoff: the cancelled task is never sent.
      await new Promise((r) => setTimeout(r, 2_500));
      const calls = (await acs!.calls()).filter((c) => c.taskId === id);
      expect(calls.filter((c) => c.op === "dispatch" && c.status === 200), "never dispatched").toEqual([]);
      // A dispatch answer may have been lost, so the executing system is asked too, by task id: it never took it (200).
      expect(calls.filter((c) => c.op === "cancel").map((c) => [c.externalTaskNo, c.status]), "asked once, by task id").toEqual([[id, 200]]);
      expect((await getTask(runner!.url, id))!.status).toBe("CANCELLED");
    }), 90_000);

  it("cancel after dispatch: cancelled in the executing system → CANCEL_PENDING_CALLBACK → callback → CANCELLED; a late FINISHED changes nothing", () =>
    timed("cancel after dispatch", async () => {
      const id = `${run}-cancel-late`;
      await create(id);
      const dispatched = await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched");
      const cancel = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/cancel`, { reason: "line stopped", requestId: `${id}-r1` });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      const cancels = (await acs!.calls()).filter((c) => c.op === "cancel" && c.taskId === id);
      expect(cancels.map((c) => [c.externalTaskNo, c.status])).toEqual([[dispatched.externalTaskNo, 200]]);
      expect(cancels[0]!.body).toMatchObject({ taskId: id, reason: "line stopped" });
      expect(["CANCEL_PENDING_CALLBACK", "CANCELLED"]).toContain((await getTask(runner!.url, id))!.status);
      await waitTask(id, (t) => t.status === "CANCELLED", "cancelled after the owner's callback");
      expect((await effects(id)).map((e) => e.event_type)).toEqual(["TASK_CANCELLED"]);

      const repeat = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/cancel`, { reason: "line stopped", requestId: `${id}-r1` });
      expect(repeat.status, "cancel is idempotent").toBe(200);
      expect((await acs!.calls()).filter((c) => c.op === "cancel" && c.taskId === id), "the repeat does not cancel again").toHaveLength(1);
      const late = await acs!.report(id, "FINISHED");
      expect(late.status).toBeLessThan(500);
      expect((await getTask(runner!.url, id))!.status).toBe("CANCELLED");
      expect((await effects(id)).map((e) => e.event_type), "the owner ran one handler for the task").toEqual(["TASK_CANCELLED"]);
    }), 90_000);

  it("cancel too late: the executing system finished it → 409 TOO_LATE; its FINISHED report then finishes the task", () =>
    timed("cancel too late", async () => {
      const id = `${run}-too-late`;
      await create(id);
      await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched");
      await acs!.finishLocally(id);
      const cancel = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/cancel`, { reason: "too slow", requestId: `${id}-r1` });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(409);
      expect(JSON.stringify(cancel.body)).toContain("TOO_LATE");
      expect((await getTask(runner!.url, id))!.status).toBe("DISPATCHED");
      expect((await acs!.report(id, "FINISHED")).status).toBe(200);
      await waitTask(id, (t) => t.status === "FINISHED", "finished after the owner's callback");
      expect((await effects(id)).map((e) => e.event_type)).toEqual(["TASK_FINISHED"]);
    }), 90_000);

  it("a handler failing until DEAD: FAILURE reported; replay (dry run over HTTP, then msgx tasks replay) with the handler fixed → FINISHED", () =>
    timed("dead and replayed", async () => {
      const id = `${run}-dead`;
      await create(id, "E2E_FLAKY");
      await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched");
      expect((await acs!.report(id, "FINISHED")).status).toBe(200);
      await eventually(async () => ((await consumeRows(id)).some((r) => r.status === "DEAD") ? true : undefined), 30_000, "the owner's DEAD row");
      const [dead] = await consumeRows(id);
      expect(dead).toMatchObject({ event_type: "TASK_FINISHED", status: "DEAD", attempts: 3 });
      expect(dead!.error_msg).toContain("E2E_FLAKY is switched to fail");
      const failed = await waitTask(id, (t) => typeof t.callbackError === "string" && t.callbackError !== "", "the owner's FAILURE recorded");
      expect(failed.status, "the task waits for a SUCCESS").toBe("FINISHED_PENDING_CALLBACK");
      expect(failed.callbackError).toContain("E2E_FLAKY is switched to fail");
      expect(await effects(id)).toEqual([]);
      // Pending past the watchdog's time with the owner's FAILURE: alerted (an operator must replay it).
      const alerted = await waitTask(id, (t) => t.callbackAlerts >= 1, "the watchdog's alert");
      expect(alerted.status).toBe("FINISHED_PENDING_CALLBACK");
      expect(await metric(runner!.url, "msgx_task_callbacks_pending_alerts_total")).toBeGreaterThanOrEqual(1);
      const redelivered = owner!.of(id).filter((s) => s.record.headers["msgx-redeliver"] !== undefined);
      expect(redelivered.filter((s) => s.step.did !== "duplicate"), "a redelivery never reruns a dead event").toEqual([]);

      const preflight = await taskApi(runner!.url, "POST", "/task/v1/replay", { taskIds: [id], reason: "handler fixed", dryRun: true });
      expect(preflight.status, JSON.stringify(preflight.body)).toBe(200);
      expect(JSON.stringify(preflight.body), "the preflight lists the task").toContain(id);
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await consumeRows(id))[0]!.status, "a dry run republishes nothing").toBe("DEAD");

      await pgClient.query(`UPDATE ${ownerSchema}.owner_switch SET failing = false WHERE handler_code = 'E2E_FLAKY'`);
      const cli = await runCli(["tasks", "replay", "--task", id, "--reason", "handler fixed", "--operator", "e2e-operator", "--url", runner!.url, "--token", TASK_TOKEN]);
      expect(cli.code, cli.output).toBe(0);
      await waitTask(id, (t) => t.status === "FINISHED", "finished after the replay");
      expect((await effects(id)).map((e) => e.event_type)).toEqual(["TASK_FINISHED"]);
      expect(await callbackMarked(id)).toMatchObject({ status: "SUCCEEDED", callback_status: "SENT" });
      const replayed = owner!.of(id).filter((s) => s.record.headers["msgx-replay"] !== undefined);
      expect(replayed.map((s) => s.step.did), "the replayed record ran the handler again").toContain("succeeded");
      const { rows: audit } = await pgClient.query(`SELECT replay_id, replayed_by, reason, task_ids FROM ${run}.task_replay WHERE task_ids ? $1`, [id]);
      expect(audit, "one audit row: the replay, not the dry run").toMatchObject([{ replayed_by: "e2e-operator", reason: "handler fixed", task_ids: [id] }]);
      expect(replayed[0]!.record.headers["msgx-replay"], "the record names the audited replay").toBe(audit[0].replay_id);
    }), 90_000);

  it("the owner's callback lost on the way: the watchdog alerts and sends the event again (msgx-redeliver); the owner reports again → FINISHED, its handler run once", () =>
    timed("watchdog redelivery", async () => {
      const id = `${run}${LOST}`;
      await create(id);
      await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched");
      expect((await acs!.report(id, "FINISHED")).status).toBe(200);
      await eventually(async () => (owner!.lost().some((c) => c.taskId === id) ? true : undefined), 30_000, "the lost callback");
      expect((await getTask(runner!.url, id))!.status, "the task service never got the report").toBe("FINISHED_PENDING_CALLBACK");
      const done = await waitTask(id, (t) => t.status === "FINISHED", "finished after the watchdog's redelivery");
      expect(done.callbackAlerts).toBeGreaterThanOrEqual(1);
      const again = owner!.of(id).filter((s) => s.record.headers["msgx-redeliver"] === "watchdog");
      expect(again.map((s) => s.step.did), "the redelivered record is a duplicate at the owner").toContain("duplicate");
      expect((await effects(id)).map((e) => e.event_type), "the handler ran once").toEqual(["TASK_FINISHED"]);
      expect(await callbackMarked(id)).toMatchObject({ status: "SUCCEEDED", callback_status: "SENT" });
      expect(await metric(runner!.url, "msgx_task_callbacks_pending_alerts_total")).toBeGreaterThanOrEqual(1);
    }), 60_000);

  it("the executing system unreachable (connection dropped): the task waits in CREATED with no attempt spent, and is dispatched once it answers", () =>
    timed("dispatch outage", async () => {
      const id = `${run}-outage`;
      await acs!.control({ dropped: { [id]: true } });
      await create(id);
      await eventually(async () => ((await acs!.calls()).filter((c) => c.taskId === id && c.status === 0).length >= 2 ? true : undefined), 30_000, "dropped dispatch calls");
      expect(await getTask(runner!.url, id)).toMatchObject({ status: "CREATED", dispatchAttempts: 0 });
      await acs!.control({ dropped: { [id]: false } });
      const dispatched = await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched after the outage");
      expect(dispatched.dispatchAttempts, "only the answered call counts").toBe(1);
    }), 60_000);

  it("a dispatch refused for good (422 from the executing system) → FAILED with its reason; no owner event; cancel refused", () =>
    timed("dispatch refused", async () => {
      const id = `${run}-refused`;
      await acs!.control({ refused: { [id]: "no such point B07" } });
      await create(id);
      const failed = await waitTask(id, (t) => t.status === "FAILED", "failed");
      expect(failed.statusReason).toContain("no such point B07");
      expect((await acs!.calls()).filter((c) => c.taskId === id).map((c) => c.status), "refused once, never asked again").toEqual([422]);
      const cancel = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/cancel`, { reason: "too late anyway" });
      expect(cancel.status).toBe(409);
      expect(JSON.stringify(cancel.body)).toContain("ILLEGAL_STATE");
      expect(await consumeRows(id), "FAILED publishes nothing to the owner").toEqual([]);
      expect((await getTask(runner!.url, id))!.status).toBe("FAILED");
    }), 60_000);

  it("an unknown owner is refused with 422 in topic-per-owner mode; nothing is stored", () =>
    timed("unknown owner", async () => {
      const id = `${run}-wms`;
      const answer = await taskApi(runner!.url, "POST", "/task/v1/tasks", newTask(id, "E2E_MOVE", "WMS"));
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ error: expect.any(String), message: expect.stringContaining("WMS") });
      expect(JSON.stringify(answer.body)).toContain("UNKNOWN_OWNER");
      expect(await getTask(runner!.url, id)).toBeUndefined();
      expect((await taskApi(runner!.url, "POST", "/task/v1/tasks", newTask(id), null)).status, "no token").toBe(401);
    }), 30_000);

  it("lineage: created, dispatched, fed back by the executing system, cancelled → CANCEL_PENDING_CALLBACK naming the cancel's caller, then the owner's callback; over /admin and msgx tasks lineage", () =>
    timed("lineage", async () => {
      const id = `${run}-lineage`;
      await create(id);
      await waitTask(id, (t) => t.status === "DISPATCHED", "dispatched");
      expect((await acs!.report(id, "EXECUTING", { progress: "vehicle V12 at A01" })).status).toBe(200);
      await waitTask(id, (t) => t.status === "EXECUTING", "executing");
      // The cancel comes from an operator's tool: its request id and User-Agent name it in the lineage.
      const cancel = await fetch(new URL(`/task/v1/tasks/${id}/cancel`, runner!.url), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TASK_TOKEN}`, "x-request-id": `${id}-ops-cancel`, "user-agent": "lms-ops-console/1.0" },
        body: JSON.stringify({ reason: "人工取消", requestId: `${id}-cancel` }),
      });
      expect(cancel.status).toBe(200);
      await waitTask(id, (t) => t.status === "CANCELLED", "cancelled after the owner's callback");
      const acsCalls = (await acs!.calls()).filter((c) => c.taskId === id);

      const res = await fetch(new URL(`/admin/tasks/${id}/lineage`, runner!.url));
      expect(res.status).toBe(200);
      const lineage = (await res.json()) as { taskId: string; status: string; entries: Task[]; next: number | null };
      expect(lineage).toMatchObject({ taskId: id, status: "CANCELLED", next: null });
      // Newest first, every version there: one per change, or a run of watchdog alerts per entry.
      const oldestFirst = [...lineage.entries].reverse();
      oldestFirst.forEach((e, i) => expect(e.version - e.repeats).toBe(i === 0 ? 0 : oldestFirst[i - 1]!.version));
      // The status changes; a loaded machine may add entries that keep the status (a dispatch
      // attempt timed out and retried, a watchdog redelivery while the owner is slow).
      const changes = oldestFirst.filter((e) => e.from !== e.to);
      for (const e of oldestFirst.filter((x) => x.from === x.to)) expect(["dispatch", "watchdog"]).toContain(e.cause.kind);
      expect(changes.map((e) => [e.from, e.to, e.cause.kind])).toEqual([
        [null, "CREATED", "create"],
        ["CREATED", "DISPATCHED", "dispatch"],
        ["DISPATCHED", "EXECUTING", "feedback"],
        ["EXECUTING", "CANCEL_PENDING_CALLBACK", "cancel"],
        ["CANCEL_PENDING_CALLBACK", "CANCELLED", "callback"],
      ]);
      const [created, dispatched, executing, cancelled, calledBack] = changes as [Task, Task, Task, Task, Task];
      expect(created.caller).toMatchObject({ route: "POST /task/v1/tasks", remoteAddress: expect.stringMatching(/127\.0\.0\.1/) });
      expect(dispatched).toMatchObject({ cause: { answer: "accepted" }, caller: null, detail: `external task ${acsCalls.find((c) => c.op === "dispatch")!.externalTaskNo}` });
      expect(executing).toMatchObject({ cause: { status: "EXECUTING", externalEventId: expect.any(String) }, caller: { route: "POST /task/v1/tasks/:id/feedback" } });
      expect(cancelled).toMatchObject({
        cause: { kind: "cancel", requestId: `${id}-cancel`, reason: "人工取消" },
        caller: { route: "POST /task/v1/tasks/:id/cancel", requestId: `${id}-ops-cancel`, userAgent: "lms-ops-console/1.0" },
      });
      expect(calledBack).toMatchObject({ cause: { kind: "callback", result: "SUCCESS", eventId: cancelled.detail.match(/owner event (\S+)/)[1].replace(/;$/, "") } });

      const table = await runCli(["tasks", "lineage", id, "--url", runner!.url]);
      expect(table.code, table.output).toBe(0);
      const lines = table.output.trim().split("\n");
      expect(lines[0]).toMatch(/^VERSION\s+AT \(UTC\)\s+STATUS\s+CAUSE\s+CALLER\s+DETAIL$/);
      expect(lines.slice(1, -1).map((l) => l.split(/\s{2,}/)[2])).toEqual(lineage.entries.map((e) => `${e.from ?? "-"} → ${e.to}`));
      const cancelLine = lines[lineage.entries.indexOf(cancelled) + 1]!;
      expect(cancelLine).toContain(`cancel ${id}-cancel: 人工取消`);
      expect(cancelLine).toContain(`req=${id}-ops-cancel`);
      expect(lines.at(-1)).toMatch(new RegExp(`^task ${id} \\(T\\d+\\) is CANCELLED$`));
      const json = await runCli(["tasks", "lineage", id, "--url", runner!.url, "--json"]);
      expect(JSON.parse(json.output)).toEqual(lineage);

      // Paging as the flight lineage: `next` is the `before` of the older page.
      const first = (await (await fetch(new URL(`/admin/tasks/${id}/lineage?limit=2`, runner!.url))).json()) as typeof lineage;
      expect(first).toEqual({ ...lineage, entries: lineage.entries.slice(0, 2), next: lineage.entries[1]!.version });
      const rest = (await (await fetch(new URL(`/admin/tasks/${id}/lineage?before=${first.next}`, runner!.url))).json()) as typeof lineage;
      expect([...first.entries, ...rest.entries]).toEqual(lineage.entries);
      for (const bad of ["?limit=0", "?limit=501", "?before=x"]) expect((await fetch(new URL(`/admin/tasks/${id}/lineage${bad}`, runner!.url))).status, bad).toBe(400);
      const paged = await runCli(["tasks", "lineage", id, "--url", runner!.url, "--limit", "2"]);
      expect(paged.output.trim().split("\n").at(-1)).toBe(`older entries: --before ${first.next}`);

      expect((await fetch(new URL(`/admin/tasks/${run}-never/lineage`, runner!.url))).status).toBe(404);
      expect((await fetch(new URL(`/admin/tasks/${encodeURIComponent("bad id!")}/lineage`, runner!.url))).status).toBe(400);
      const unknown = await runCli(["tasks", "lineage", `${run}-never`, "--url", runner!.url]);
      expect([unknown.code, unknown.output]).toEqual([2, expect.stringContaining(`no task ${run}-never is stored`)]);
    }), 60_000);
});
