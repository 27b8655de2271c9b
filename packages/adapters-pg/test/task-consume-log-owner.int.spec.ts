import { gateService, ManualClock } from "@msgx/core/testing";
import { EventHeader } from "@msgx/core";
import { TaskEventConsumer, TaskEventHeader, TaskHandlerRegistry, taskEventMessage, newTaskRecord, type ConsumedTaskRecord, type TaskEventMessage } from "@msgx/tasks";
import { sql, type Kysely, type Transaction } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { taskConsumeLogMigration } from "../src/tasks/0006-task-routing.js";
import { taskConsumeLogPurgeMigration } from "../src/tasks/0017-task-consume-log-purge.js";
import { purgeCandidates } from "../src/tasks/task-consume-log-queries.js";
import { PgTaskConsumeLogStore } from "../src/tasks/pg-task-consume-log-store.js";
import { freshPgSchema, probePostgres, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: the task owner's consume log (replay, report again, purge index)", probePostgres);

const event = (taskId: string, version: number, eventType: TaskEventMessage["eventType"] = "TASK_FINISHED"): TaskEventMessage =>
  taskEventMessage(
    { ...newTaskRecord({ taskId, ownerService: "LMS", handlerCode: "LMS_STOCK_AREA_CALL_TUBE", bizType: "B", bizId: `B-${taskId}`, externalSystem: "ACS" }, 0, "T202607130001"), version },
    eventType,
    "ACS-E1",
    0,
  );
const record = (e: TaskEventMessage, deliveryId: string, extra: Record<string, string> = {}): ConsumedTaskRecord => ({
  topic: "TASK_EVENT_TOPIC",
  partition: 0,
  offset: deliveryId,
  key: e.taskId,
  value: JSON.stringify(e),
  headers: { [TaskEventHeader.OWNER]: "LMS", [EventHeader.EVENT_ID]: deliveryId, ...extra },
});

describe.skipIf(!gate.available)("the task owner's consume log on PostgreSQL", () => {
  let t: PgTestDb;
  let db: Kysely<any>;
  let clock: ManualClock;
  let failing: boolean;
  let consumer: TaskEventConsumer<Transaction<any>>;
  let log: PgTaskConsumeLogStore;

  beforeEach(async () => {
    t = await freshPgSchema({ max: 4 });
    db = t.db;
    await db.transaction().execute(async (trx) => {
      await taskConsumeLogMigration(t.schema).up(trx);
      await taskConsumeLogPurgeMigration(t.schema).up(trx);
      await sql`CREATE TABLE lms_stock (task_id text PRIMARY KEY)`.execute(trx);
    });
    clock = new ManualClock();
    failing = true;
    log = new PgTaskConsumeLogStore(db);
    consumer = new TaskEventConsumer<Transaction<any>>({
      owner: "LMS",
      registry: new TaskHandlerRegistry<Transaction<any>>([
        {
          handlerCode: "LMS_STOCK_AREA_CALL_TUBE",
          onTaskFinished: async (e, ctx) => {
            await sql`INSERT INTO lms_stock (task_id) VALUES (${e.taskId})`.execute(ctx.tx);
            if (failing) throw new Error("stock point locked");
          },
          onTaskCancelled: async () => undefined,
        },
      ]),
      log,
      clock,
      policy: { maxAttempts: 2, initialBackoffMs: 1_000, backoffMultiplier: 2, maxBackoffMs: 60_000, headDeadlineMs: 600_000 },
    });
  });
  afterEach(async () => {
    await t.close();
  });

  const stock = async () => (await sql<{ task_id: string }>`SELECT task_id FROM lms_stock ORDER BY task_id`.execute(db)).rows.map((r) => r.task_id);

  it("a dead letter replayed (msgx-replay) runs again in its own transaction and ends SUCCEEDED with a SUCCESS report due", async () => {
    const e = event("T1", 2);
    expect(await consumer.handle(record(e, "10"))).toMatchObject({ did: "retry" });
    clock.advance(1_000);
    expect(await consumer.handle(record(e, "10"))).toMatchObject({ did: "dead", eventId: "T1#2" });
    await log.settleCallback("T1#2", "SENT", null, clock.now());
    // The rolled-back attempts left no business row.
    expect(await stock()).toEqual([]);
    failing = false;
    clock.advance(60_000);
    expect(await consumer.handle(record(e, "11", { [TaskEventHeader.REPLAY]: "rp-1" }))).toEqual({ did: "succeeded", eventId: "T1#2", attempt: 1 });
    expect(await stock()).toEqual(["T1"]);
    expect(await log.get("T1#2")).toMatchObject({ status: "SUCCEEDED", attempts: 0, deliveryEventId: "11", callbackStatus: "PENDING", callbackNextAt: clock.now() });
    expect(await consumer.handle(record(e, "11", { [TaskEventHeader.REPLAY]: "rp-1" }))).toEqual({ did: "duplicate", eventId: "T1#2" });
  });

  it("a redelivery of a settled event whose report was SENT makes it PENDING again", async () => {
    failing = false;
    const e = event("T2", 2);
    await consumer.handle(record(e, "20"));
    await log.settleCallback("T2#2", "SENT", null, clock.now());
    clock.advance(600_000);
    expect(await consumer.handle(record(e, "21", { [TaskEventHeader.REDELIVER]: "watchdog" }))).toEqual({ did: "duplicate", eventId: "T2#2", callbackReopened: true });
    expect((await log.dueCallbacks(clock.now(), 10)).map((r) => r.eventId)).toEqual(["T2#2"]);
    expect(await stock()).toEqual(["T2"]);
  });

  it("the purge's candidates are read from task_event_consume_log_purge_idx (its predicate matches the index's)", async () => {
    // An empty table's cheapest plan is a scan whatever the indexes: take scans off the table (for
    // this transaction only) so the plan shows whether the index can serve the query at all.
    const rows = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return (await sql<{ "QUERY PLAN": string }>`EXPLAIN ${purgeCandidates(Date.now(), 100)}`.execute(trx)).rows;
    });
    const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan).toContain("task_event_consume_log_purge_idx");
    expect(plan).not.toContain("Sort");
  });
});
