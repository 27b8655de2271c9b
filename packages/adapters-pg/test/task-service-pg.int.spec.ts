/**
 * The task service's own PostgreSQL parts (issue 21): migration 0016 over tasks written before it,
 * its status CHECK, the job probes read from their partial indexes (EXPLAIN), and the dispatch /
 * cancel / replay / watchdog / purge path end to end through PgTaskStore.
 */
import { DispatchJob, TaskService, TaskWatchdogJob, type TaskEventMessage } from "@msgx/tasks";
import { InMemoryTaskDispatcher, sampleNewTask } from "@msgx/tasks/testing";
import { ManualClock } from "@msgx/core/testing";
import { Kysely, sql, type KyselyPlugin, type RootOperationNode, type UnknownRow, type QueryResult } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, PGliteDialect, type PGliteLike } from "../src/index.js";
import { taskRoutingMigration } from "../src/tasks/0006-task-routing.js";
import { taskRoutingServiceMigration } from "../src/tasks/0016-task-routing-service.js";
import { taskNumbersMigration } from "../src/tasks/0024-task-numbers.js";
import { taskOverdueMigration } from "../src/tasks/0027-task-overdue.js";
import { taskHistoryMigration } from "../src/tasks/0029-task-history.js";
import { taskHistoryRepeatsMigration } from "../src/tasks/0031-task-history-repeats.js";
import { PgTaskStore } from "../src/tasks/pg-task-store.js";
import { randomSchema, SharedPglite } from "./pg-harness.js";

const T0 = Date.UTC(2026, 6, 13, 8);

/** Runs a store call with every raw statement prefixed by EXPLAIN; returns the plans (the call sees no rows). */
async function plansOf(db: Kysely<any>, call: (db: Kysely<any>) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const explain: KyselyPlugin = {
    transformQuery: (args): RootOperationNode => {
      const node = args.node as unknown as { kind: string; sqlFragments: readonly string[] };
      if (node.kind !== "RawNode" || !/^\s*SELECT/i.test(node.sqlFragments[0] ?? "")) return args.node;
      return { ...node, sqlFragments: [`EXPLAIN ${node.sqlFragments[0]}`, ...node.sqlFragments.slice(1)] } as unknown as RootOperationNode;
    },
    transformResult: async (args): Promise<QueryResult<UnknownRow>> => {
      const rows = args.result.rows as { "QUERY PLAN"?: string }[];
      if (rows.length > 0 && rows[0]!["QUERY PLAN"] !== undefined) {
        plans.push(rows.map((r) => r["QUERY PLAN"]).join("\n"));
        return { ...args.result, rows: [] };
      }
      return args.result;
    },
  };
  await db.transaction().execute(async (trx) => {
    // An empty table's cheapest plan is a scan whatever the indexes: take scans off the table so
    // the plan shows whether the index can serve the query at all.
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    await call(trx.withPlugin(explain));
  });
  return plans;
}

describe("task service on PGlite: migration 0016, probes, flows", () => {
  let pglite: PGliteLike;
  const shared = new SharedPglite();
  beforeAll(async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    pglite = (await PGlite.create()) as unknown as PGliteLike;
    await shared.open();
  });
  afterAll(async () => {
    await pglite.close();
    await shared.close();
  });

  it("0016 over a task written before it: the new fields read as 'not waiting, never attempted, never alerted'; the CHECK takes FAILED and refuses others", async () => {
    const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
    const schema = randomSchema();
    await migrateToLatest(db, { schema, modules: ["pipeline"] });
    await db.transaction().execute((trx) => taskRoutingMigration(schema).up(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    await sql`
      INSERT INTO task_task (task_id, owner_service, handler_code, biz_type, biz_id, external_system, payload, status, version, created_at, updated_at)
      VALUES ('OLD-1', 'LMS', 'LMS_X', 'B', 'B1', 'ACS', '{}'::jsonb, 'CREATED', 1, ${new Date(T0)}, ${new Date(T0)})`.execute(db);
    await db.transaction().execute((trx) => taskRoutingServiceMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskNumbersMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskOverdueMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskHistoryMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskHistoryRepeatsMigration(schema).up(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    const store = new PgTaskStore(db, { clock: new ManualClock(T0) });
    const old = (await store.get("OLD-1"))!;
    expect([old.status, old.dispatchAttempts, old.nextDispatchAt, old.dispatchError, old.callbackAlerts, old.callbackAlertAt]).toEqual(["CREATED", 0, null, null, 0, null]);
    expect(await store.dueForDispatch(T0 + 3_600_000, 10)).toEqual([]);
    await sql`UPDATE task_task SET status = 'FAILED' WHERE task_id = 'OLD-1'`.execute(db);
    await expect(sql`UPDATE task_task SET status = 'BOGUS' WHERE task_id = 'OLD-1'`.execute(db)).rejects.toThrow(/task_task_status_check/);
    await expect(sql`UPDATE task_task SET dispatch_attempts = -1 WHERE task_id = 'OLD-1'`.execute(db)).rejects.toThrow(/check/);
    await db.transaction().execute((trx) => taskHistoryRepeatsMigration(schema).down!(trx));
    await db.transaction().execute((trx) => taskHistoryMigration(schema).down!(trx));
    await db.transaction().execute((trx) => taskOverdueMigration(schema).down!(trx));
    await db.transaction().execute((trx) => taskNumbersMigration(schema).down!(trx));
    // Down again: FAILED tasks go (the old CHECK has no place for them), the rest stays.
    await sql`
      INSERT INTO task_task (task_id, owner_service, handler_code, biz_type, biz_id, external_system, payload, status, version, created_at, updated_at)
      VALUES ('OLD-2', 'LMS', 'LMS_X', 'B', 'B2', 'ACS', '{}'::jsonb, 'CREATED', 1, ${new Date(T0)}, ${new Date(T0)})`.execute(db);
    await db.transaction().execute((trx) => taskRoutingServiceMigration(schema).down!(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    expect((await sql<{ task_id: string }>`SELECT task_id FROM task_task ORDER BY task_id`.execute(db)).rows.map((r) => r.task_id)).toEqual(["OLD-2"]);
    await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
  });

  it("0024 numbers the tasks written before it by UTC creation day, in creation order; new creates count on after them; 0027 leaves them unwatched; down drops it all", async () => {
    const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
    const schema = randomSchema();
    await migrateToLatest(db, { schema, modules: ["pipeline"] });
    await db.transaction().execute((trx) => taskRoutingMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskRoutingServiceMigration(schema).up(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    const day2 = T0 + 24 * 3_600_000;
    for (const [id, at] of [["OLD-b", T0 + 5], ["OLD-a", T0 + 5], ["OLD-c", T0], ["OLD-d", day2]] as const) {
      await sql`
        INSERT INTO task_task (task_id, owner_service, handler_code, biz_type, biz_id, external_system, payload, status, version, created_at, updated_at)
        VALUES (${id}, 'LMS', 'LMS_X', 'B', ${id}, 'ACS', '{}'::jsonb, 'CREATED', 1, ${new Date(at)}, ${new Date(at)})`.execute(db);
    }
    await db.transaction().execute((trx) => taskNumbersMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskOverdueMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskHistoryMigration(schema).up(trx));
    await db.transaction().execute((trx) => taskHistoryRepeatsMigration(schema).up(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    const store = new PgTaskStore(db, { clock: new ManualClock(T0) });
    // 0027 over tasks written before it: not watched, never overdue.
    const before = (await store.get("OLD-a"))!;
    expect([before.deadlineMs, before.heartbeatMs, before.deadlineAt, before.lastProgressAt, before.deadlineOverdueAt, before.heartbeatOverdueAt]).toEqual([null, null, null, null, null, null]);
    await sql`UPDATE task_task SET status = 'DISPATCHED' WHERE task_id = 'OLD-a'`.execute(db);
    expect(await store.overdueCandidates(T0 + 365 * 24 * 3_600_000, 10)).toEqual([]);
    await sql`UPDATE task_task SET status = 'CREATED' WHERE task_id = 'OLD-a'`.execute(db);
    await expect(sql`UPDATE task_task SET heartbeat_ms = 0 WHERE task_id = 'OLD-a'`.execute(db)).rejects.toThrow(/check/);
    const numbers = Object.fromEntries((await store.list({})).map((t) => [t.taskId, [t.taskNo, t.startPointCode, t.vehicleCode]]));
    expect(numbers).toEqual({ "OLD-a": ["T202607130002", null, null], "OLD-b": ["T202607130003", null, null], "OLD-c": ["T202607130001", null, null], "OLD-d": ["T202607140001", null, null] });
    const service = new TaskService({ store, clock: new ManualClock(T0) });
    const created = await service.create({ taskId: "NEW-1", ownerService: "LMS", handlerCode: "LMS_X", bizType: "B", bizId: "N1", externalSystem: "ACS", startPointCode: "P1", endPointCode: "P2", vehicleCode: "V1" });
    expect([created.task.taskNo, created.task.startPointCode, created.task.endPointCode, created.task.vehicleCode]).toEqual(["T202607130004", "P1", "P2", "V1"]);
    expect((await store.getByTaskNo("T202607130004"))).toEqual(created.task);
    await expect(sql`UPDATE task_task SET task_no = 'T202607130001' WHERE task_id = 'NEW-1'`.execute(db)).rejects.toThrow(/task_task_task_no_idx/);
    await db.transaction().execute((trx) => taskHistoryRepeatsMigration(schema).down!(trx));
    await db.transaction().execute((trx) => taskHistoryMigration(schema).down!(trx));
    await db.transaction().execute((trx) => taskOverdueMigration(schema).down!(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    expect((await sql<{ c: string }>`SELECT column_name AS c FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = 'task_task' AND column_name LIKE '%overdue%'`.execute(db)).rows).toEqual([]);
    await db.transaction().execute((trx) => taskNumbersMigration(schema).down!(trx));
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    expect((await sql<{ t: string | null }>`SELECT to_regclass('task_no_seq')::text AS t`.execute(db)).rows[0]?.t).toBeNull();
    await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
  });

  it("the dispatch, watchdog, overdue and purge probes are read from their partial indexes, in index order (no sort)", async () => {
    const t = await shared.freshSchema();
    try {
      const store = (db: Kysely<any>) => new PgTaskStore(db);
      const [due] = await plansOf(t.db, (db) => store(db).dueForDispatch(T0, 20));
      expect(due).toContain("task_task_dispatch_due_idx");
      expect(due).not.toContain("Sort");
      const [stale] = await plansOf(t.db, (db) => store(db).stalePendingCallbacks(T0, T0, 50));
      expect(stale).toContain("task_task_pending_callback_idx");
      expect(stale).not.toContain("Sort");
      const [purge] = await plansOf(t.db, (db) => store(db).purgeFinished(T0, 100));
      expect(purge).toContain("task_task_finished_idx");
      expect(purge).not.toContain("Sort");
      // Overdue (0027): each cause's probe reads its own partial index by due time; the list of overdue tasks its own.
      const [overdue] = await plansOf(t.db, (db) => store(db).overdueCandidates(T0, 50));
      expect(overdue).toContain("task_task_deadline_due_idx");
      expect(overdue).toContain("task_task_heartbeat_due_idx");
      expect(overdue).not.toMatch(/Seq Scan/);
      const [listed] = await plansOf(t.db, (db) => store(db).list({ overdue: true, limit: 21 }));
      expect(listed).toContain("task_task_overdue_idx");
      const [counted] = await plansOf(t.db, (db) => store(db).countOverdue());
      expect(counted).toContain("task_task_overdue_idx");
    } finally {
      await t.close();
    }
  });

  it("dispatch -> executing -> cancel; refused -> FAILED; dead -> replay; lost callback -> watchdog; finished -> purged", async () => {
    const t = await shared.freshSchema();
    try {
      const clock = new ManualClock(T0);
      const store = new PgTaskStore(t.db, { clock });
      const dispatcher = new InMemoryTaskDispatcher();
      let n = 0;
      const service = new TaskService({ store, clock, dispatcher, routing: { mode: "topic-per-owner", topicPattern: "{owner}_TASK_EVENT_TOPIC", owners: ["LMS"] }, ids: () => `R${++n}` });
      const job = new DispatchJob({ store, dispatcher, clock });
      const watchdog = new TaskWatchdogJob({ store, clock, routing: service.routing });
      const events = async () =>
        (await sql<{ payload: unknown; headers: Record<string, string> | null; target: string }>`SELECT payload, headers, target FROM msg_event ORDER BY event_id`.execute(t.db)).rows.map((r) => ({
          ...r,
          payload: (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload) as TaskEventMessage,
        }));

      await expect(service.create(sampleNewTask("X", { ownerService: "WMS" }))).rejects.toMatchObject({ code: "UNKNOWN_OWNER" });
      for (const id of ["A", "B", "C", "D"]) await service.create(sampleNewTask(id));
      dispatcher.script("refuse", "no such task type");
      expect(await job.step()).toMatchObject({ examined: 4, dispatched: 3, refused: 1 });
      expect((await store.get("A"))!).toMatchObject({ status: "FAILED", statusReason: "no such task type", dispatchAttempts: 1, nextDispatchAt: null });
      expect((await store.get("B"))!).toMatchObject({ status: "DISPATCHED", externalTaskNo: "EXT-1", dispatchAttempts: 1 });

      await service.feedback({ taskId: "B", externalEventId: "E1", status: "EXECUTING", progress: '{"pct":40}' });
      expect((await service.cancel("B", { reason: "人工取消", requestId: "C-1" })).outcome).toBe("cancelled");
      expect((await service.cancel("B", { reason: "人工取消", requestId: "C-1" })).outcome).toBe("already");

      const fin = await service.feedback({ taskId: "C", externalEventId: "E2", status: "FINISHED" });
      await service.callback({ taskId: "C", eventId: fin.task.lastEventId!, result: "FAILURE", message: "dead" });
      const replay = await service.replay({ handlerCode: "LMS_STOCK_AREA_CALL_TUBE" }, { by: "ops", reason: "fixed" });
      expect([replay.replayId, replay.replayed]).toEqual(["R1", ["C"]]);
      expect(await store.replay("R1")).toMatchObject({ by: "ops", reason: "fixed", filter: { handlerCode: "LMS_STOCK_AREA_CALL_TUBE" }, taskIds: ["C"] });

      await service.feedback({ taskId: "D", externalEventId: "E3", status: "FINISHED" });
      clock.advance(10 * 60_000);
      expect(await watchdog.step()).toMatchObject({ alerted: 3, redelivered: 3 });

      const rows = await events();
      expect(rows.map((r) => [r.payload.taskId, r.payload.eventType, r.payload.eventId, r.target])).toEqual([
        ["B", "TASK_EXECUTING", "B#3", "KAFKA:task:LMS"],
        ["B", "TASK_CANCELLED", "B#4", "KAFKA:task:LMS"],
        ["C", "TASK_FINISHED", "C#3", "KAFKA:task:LMS"],
        ["C", "TASK_FINISHED", "C#3", "KAFKA:task:LMS"],
        ["D", "TASK_FINISHED", "D#3", "KAFKA:task:LMS"],
        ["B", "TASK_CANCELLED", "B#4", "KAFKA:task:LMS"],
        ["C", "TASK_FINISHED", "C#3", "KAFKA:task:LMS"],
        ["D", "TASK_FINISHED", "D#3", "KAFKA:task:LMS"],
      ]);
      expect(rows[0]!.payload.progress).toBe('{"pct":40}');
      expect(rows[3]!.headers).toMatchObject({ "msgx-replay": "R1" });
      expect(rows[3]!.payload).toEqual(rows[2]!.payload);
      expect(rows[7]!.headers).toMatchObject({ "msgx-redeliver": "watchdog" });

      await service.callback({ taskId: "D", eventId: "D#3", result: "SUCCESS" });
      clock.advance(1);
      expect(await store.purgeFinished(clock.now(), 10)).toBe(2);
      expect(await store.get("A")).toBeUndefined();
      expect(await store.get("D")).toBeUndefined();
      expect(await store.feedback("D")).toEqual([]);
      expect(await store.callbacks("D")).toEqual([]);
      expect((await store.list({})).map((x) => x.taskId)).toEqual(["B", "C"]);
    } finally {
      await t.close();
    }
  });
});
