/**
 * Task-event routing end to end on real PostgreSQL and Kafka, through the example's own services
 * (`examples/task-routing`): the task service (HTTP API, PgTaskStore, relay to Kafka) and the LMS
 * owner service (kafkajs consumer group, two handlers, consume log, HTTP callbacks), each in a
 * fresh schema, on a topic of this run. The scenario drives them over HTTP; the assertions read
 * the rows of both databases (and the records on the topic, for the owner header).
 */
import { randomBytes } from "node:crypto";
import { gateService } from "@msgx/core/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskTopic, taskTopics, type TaskRouting } from "../../tasks/src/task-routing-config.js";
import {
  kafkaClient,
  probeKafka,
  runScenario,
  startLmsApp,
  startTaskServiceApp,
  type LmsApp,
  type ScenarioReport,
  type TaskServiceApp,
} from "../../../examples/task-routing/src/index.js";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";
import { PG_URL, probePostgres, randomSchema } from "./pg-harness.js";

const BROKERS = (process.env["MSGX_KAFKA_BROKERS"] ?? "127.0.0.1:9092").split(",").map((b) => b.trim());
const pgGate = await gateService("PostgreSQL", "adapters-pg: task routing end to end", probePostgres);
const kafkaGate = await gateService("Kafka", "adapters-pg: task routing end to end", () => probeKafka(BROKERS));
const FAST = { maxAttempts: 5, initialBackoffMs: 300, backoffMultiplier: 2, maxBackoffMs: 2_000, headDeadlineMs: 600_000 };

type Row = Record<string, unknown>;
const byTask = (rows: readonly Row[], taskId: string) => rows.filter((r) => r["task_id"] === taskId);

const run = randomBytes(4).toString("hex");
const HEADER: TaskRouting = { mode: "owner-header", topic: `msgx-it-task-events-${run}` };
const PER_OWNER: TaskRouting = { mode: "topic-per-owner", topicPattern: `msgx-it-{owner}-task-events-${run}` };

const CALLBACK_TOPIC = `msgx-it-task-callbacks-${run}`;

describe.skipIf(!pgGate.available || !kafkaGate.available).each([
  ["one topic with the owner header, HTTP callbacks", HEADER, undefined],
  ["a topic per owner, callbacks on a result topic", PER_OWNER, CALLBACK_TOPIC],
])("task routing end to end (PostgreSQL + Kafka, example services): %s", (_name, routing, callbackTopic) => {
  const topics = taskTopics(routing, ["LMS", "WMS"]);
  const viaTopic = callbackTopic === undefined ? {} : { callbackTopic };
  const topic = topics[0]!;
  const target = (owner: string) => (routing.mode === "owner-header" ? "KAFKA:task" : `KAFKA:task:${owner}`);
  const taskSchema = randomSchema();
  const lmsSchema = randomSchema();
  let task: TaskServiceApp;
  let lms: LmsApp;
  let report: ScenarioReport;
  let id: (n: number) => string;

  beforeAll(async () => {
    task = await startTaskServiceApp({ pgUrl: PG_URL, schema: taskSchema, brokers: BROKERS, routing, owners: ["LMS", "WMS"], port: 0, partitions: 2, ...viaTopic });
    lms = await startLmsApp({ pgUrl: PG_URL, schema: lmsSchema, brokers: BROKERS, routing, taskServiceUrl: task.url, groupId: `${topic}-LMS`, policy: FAST, ...viaTopic });
    report = await runScenario({ task, lms, timeoutMs: 35_000 });
    id = (n) => `${report.prefix}-T${n}`;
  });

  afterAll(async () => {
    await lms?.stop();
    if (task !== undefined) {
      await sql`DROP SCHEMA IF EXISTS ${sql.id(lmsSchema)} CASCADE`.execute(task.db).catch(() => undefined);
      await sql`DROP SCHEMA IF EXISTS ${sql.id(taskSchema)} CASCADE`.execute(task.db).catch(() => undefined);
      await task.stop();
    }
    const admin = kafkaClient(BROKERS, "msgx-it-cleanup").admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [...topics, ...(callbackTopic === undefined ? [] : [callbackTopic])] }).catch(() => undefined);
    await admin.disconnect();
  });

  it("settles: every LMS task handled and reported, the redelivered event acknowledged unrun", () => {
    expect(report.settled).toBe(true);
    expect(report.stats.duplicate).toBeGreaterThanOrEqual(1);
    // WMS's record is on the shared topic (skipped by its header), or on WMS's own topic (never seen).
    if (routing.mode === "owner-header") expect(report.stats.skipped).toBeGreaterThanOrEqual(1);
    else expect(report.stats.skipped).toBe(0);
    expect(report.stats.dead).toBe(1);
  });

  it("task_task: finished and cancelled tasks of both handlers are final; the unknown code and WMS's task wait", () => {
    const status = (n: number) => byTask(report.tasks, id(n))[0];
    expect(status(1)).toMatchObject({ handler_code: "LMS_STOCK_AREA_CALL_TUBE", status: "FINISHED", callback_error: null });
    expect(status(2)).toMatchObject({ handler_code: "LMS_SLITTER_DOWN_AGV", status: "FINISHED", callback_error: null });
    expect(status(3)).toMatchObject({ handler_code: "LMS_SLITTER_DOWN_AGV", status: "CANCELLED" });
    expect(status(4)).toMatchObject({ handler_code: "LMS_STOCK_AREA_CALL_TUBE", status: "CANCELLED" });
    expect(status(5)).toMatchObject({ status: "FINISHED_PENDING_CALLBACK" });
    expect(String(status(5)?.["callback_error"])).toContain('unknown handler code "LMS_NO_SUCH_HANDLER"');
    expect(status(6)).toMatchObject({ owner_service: "WMS", status: "FINISHED_PENDING_CALLBACK", callback_error: null });
  });

  it("task_feedback and msg_event: repeated ACS reports publish one event per task, all sent", () => {
    expect(byTask(report.feedback, id(1)).map((f) => f["outcome"])).toEqual(["APPLIED", "IGNORED"]);
    for (const n of [2, 3, 4, 5, 6]) expect(byTask(report.feedback, id(n)).map((f) => f["outcome"])).toEqual(["APPLIED"]);
    expect(report.events.map((e) => [e["partition_key"], e["target"], e["event_type"], e["status"]])).toEqual([
      [id(1), target("LMS"), "TASK_FINISHED", "SENT"],
      [id(2), target("LMS"), "TASK_FINISHED", "SENT"],
      [id(3), target("LMS"), "TASK_CANCELLED", "SENT"],
      [id(4), target("LMS"), "TASK_CANCELLED", "SENT"],
      [id(5), target("LMS"), "TASK_FINISHED", "SENT"],
      [id(6), target("WMS"), "TASK_FINISHED", "SENT"],
    ]);
  });

  it("task_event_consume_log: handled once, the flaky handler after two failures, the unknown code dead-lettered with its reason", () => {
    const log = (n: number) => byTask(report.consumeLog, id(n));
    expect(report.consumeLog).toHaveLength(5);
    expect(log(6)).toEqual([]);
    for (const n of [1, 3, 4]) expect(log(n)).toEqual([expect.objectContaining({ status: "SUCCEEDED", attempts: 0, error_msg: null, callback_status: "SENT" })]);
    expect(log(2)).toEqual([expect.objectContaining({ handler_code: "LMS_SLITTER_DOWN_AGV", status: "SUCCEEDED", attempts: 2, callback_status: "SENT" })]);
    expect(log(5)).toEqual([expect.objectContaining({ handler_code: "LMS_NO_SUCH_HANDLER", status: "DEAD", callback_status: "SENT" })]);
    expect(String(log(5)[0]?.["error_msg"])).toMatch(/^unknown handler code "LMS_NO_SUCH_HANDLER": .*registered: LMS_STOCK_AREA_CALL_TUBE, LMS_SLITTER_DOWN_AGV/);
    // Over HTTP, the callback refused once and the one whose answer was lost were both tried again.
    const retried = report.consumeLog.reduce((n, r) => n + Number(r["callback_attempts"]), 0);
    if (callbackTopic === undefined) expect(retried).toBeGreaterThanOrEqual(2);
  });

  it("task_callback: one APPLIED per handled task, FAILURE recorded for the dead letter, a retried callback a harmless DUPLICATE", () => {
    for (const n of [1, 2, 3, 4]) expect(byTask(report.callbacks, id(n)).filter((c) => c["outcome"] === "APPLIED")).toHaveLength(1);
    expect(byTask(report.callbacks, id(5)).map((c) => [c["result"], c["outcome"]])).toEqual([["FAILURE", "RECORDED"]]);
    // T1's redelivered event was reported again (a redelivery is how the task service asks): a
    // DUPLICATE. HTTP: besides, the callback whose answer was lost was sent again.
    expect(byTask(report.callbacks, id(1)).at(-1)).toMatchObject({ result: "SUCCESS", outcome: "DUPLICATE" });
    expect(report.callbacks.filter((c) => c["outcome"] === "DUPLICATE")).toHaveLength(callbackTopic === undefined ? 2 : 1);
    expect(report.callbacks.filter((c) => c["outcome"] === "REJECTED")).toEqual([]);
  });

  it("LMS business rows: each handler effect applied exactly once, none for the dead letter", async () => {
    expect(report.bizLog.map((b) => [b["task_id"], b["handler_code"], b["event_type"]]).sort()).toEqual(
      [
        [id(1), "LMS_STOCK_AREA_CALL_TUBE", "TASK_FINISHED"],
        [id(2), "LMS_SLITTER_DOWN_AGV", "TASK_FINISHED"],
        [id(3), "LMS_SLITTER_DOWN_AGV", "TASK_CANCELLED"],
        [id(4), "LMS_STOCK_AREA_CALL_TUBE", "TASK_CANCELLED"],
      ].sort(),
    );
    const p = report.prefix;
    const points = (await sql<Row>`SELECT point_code, ivt_status, vehicle_code FROM lms_stock_point WHERE point_code LIKE ${`BHQ-${p}-%`} ORDER BY point_code`.execute(lms.db)).rows;
    expect(points).toEqual([
      { point_code: `BHQ-${p}-E1`, ivt_status: "FULL", vehicle_code: `ZG-${p}-1` },
      { point_code: `BHQ-${p}-E4`, ivt_status: "EMPTY", vehicle_code: null },
      { point_code: `BHQ-${p}-S1`, ivt_status: "EMPTY", vehicle_code: null },
    ]);
    const plans = (await sql<Row>`SELECT material_code, is_paper_ok FROM lms_slitting_plan WHERE material_code LIKE ${`M-${p}-%`} ORDER BY material_code`.execute(lms.db)).rows;
    expect(plans).toEqual([
      { material_code: `M-${p}-1A`, is_paper_ok: true },
      { material_code: `M-${p}-1B`, is_paper_ok: true },
    ]);
    const jobs = (await sql<Row>`SELECT biz_id, status FROM lms_slitter_job ORDER BY biz_id`.execute(lms.db)).rows;
    expect(jobs).toEqual([
      { biz_id: `LMS-BIZ-${id(2)}`, status: "DOWN" },
      { biz_id: `LMS-BIZ-${id(3)}`, status: "CANCELLED" },
    ]);
  });

  it("the records carry the owner header (the routing tag) and the relay's stable event id, on the owner's topic", async () => {
    const seen = (await readRecords(topics, 7, `${topic}-reader`)).map((m) => ({
      topic: m.topic,
      owner: m.headers["msgx-owner"] ?? "",
      eventId: m.headers["msgx-event-id"] ?? "",
      body: JSON.parse(m.value!) as { ownerService: string; taskId: string },
    }));
    // Every value read back is a task event of the published schema.
    for (const r of seen) expect(schemaErrors("task-event", r.body), r.eventId).toEqual([]);
    expect(seen.every((r) => r.owner === r.body.ownerService)).toBe(true);
    expect(seen.every((r) => r.topic === taskTopic(routing, r.owner))).toBe(true);
    expect(seen.filter((r) => r.owner === "WMS").map((r) => r.body.taskId)).toEqual([id(6)]);
    // Seven records, six events: T1's was sent again with the same event id.
    const t1 = seen.filter((r) => r.body.taskId === id(1));
    expect(t1).toHaveLength(2);
    expect(t1[0]!.eventId).toBe(t1[1]!.eventId);
  });

  const callbacksTitle =
    callbackTopic === undefined
      ? "the owner's callbacks reach the task service over HTTP, one row each"
      : "the owner's callbacks read back from the result topic are task callbacks of the published schema";
  it(callbacksTitle, async () => {
    expect(report.callbacks.length, "callbacks the task service recorded").toBeGreaterThanOrEqual(4);
    if (callbackTopic === undefined) return;
    const admin = kafkaClient(BROKERS, "msgx-it-callback-count").admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(callbackTopic!).finally(() => admin.disconnect());
    const count = offsets.reduce((n, p) => n + Number(p.high), 0);
    expect(count, "the scenario reported over the result topic").toBeGreaterThanOrEqual(4);
    const callbacks = await readRecords([callbackTopic!], count, `${callbackTopic}-reader`);
    for (const m of callbacks) expect(schemaErrors("task-callback", m.value), m.key ?? "").toEqual([]);
    expect(callbacks.every((m) => m.headers["msgx-callback-event-id"] === (JSON.parse(m.value!) as { eventId: string }).eventId)).toBe(true);
  });
});

/** The first `count` records of `topics`, read from the beginning by a new consumer group. */
async function readRecords(topics: readonly string[], count: number, groupId: string) {
  const consumer = kafkaClient(BROKERS, "msgx-it-reader").consumer({ groupId, maxWaitTimeInMs: 100 });
  const got: { topic: string; key: string | null; value: string | null; headers: Record<string, string | undefined> }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${got.length} of ${count} records`)), 20_000);
      void consumer.run({
        eachMessage: async ({ topic, message }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, v?.toString()]));
          got.push({ topic, key: message.key?.toString() ?? null, value: message.value?.toString() ?? null, headers });
          if (got.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return got;
}
