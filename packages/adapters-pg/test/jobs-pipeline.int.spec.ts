/**
 * The maintenance jobs over the real stores: the history sweep against a running pipeline
 * transaction, the archive keeping dedupe through the pump, the reconciler re-registering a lost
 * backfill — on PostgreSQL and on PGlite.
 */
import { BackfillSweeper, decodeMessage, defaultProcessors, emptyRunDecision, InboxPoller, Pump, silentLogger, type FlightState } from "@msgx/core";
import { gateService, InMemoryMailbox, ManualClock, messageXml, sampleFlight } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Not in the @msgx/core barrel yet: imported by path until the export lines are added.
import { HistorySweeper } from "../../core/src/jobs/history-sweeper.js";
import { ProcStateArchiver } from "../../core/src/jobs/proc-state-archiver.js";
import { Reconciler } from "../../core/src/jobs/reconciler.js";
import { PgMaintenanceStore } from "../src/jobs/pg-maintenance-store.js";
import { PgOutboxStore, type PgPipelineStore } from "../src/index.js";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";
import { adftXml } from "./sis-stream.arbitraries.js";

const gate = await gateService("PostgreSQL", "adapters-pg: maintenance jobs over the pipeline", probePostgres);

const DAY = 86_400_000;
/** 03:30 airport time on 10 March 2026: with 7 days' retention, days before 3 March retire. */
const SWEEP = Date.UTC(2026, 2, 9, 19, 30);

interface Db {
  readonly db: Kysely<any>;
  readonly store: PgPipelineStore;
  close(): Promise<void>;
}

const count = async (db: Kysely<any>, table: string, where = sql`true`): Promise<number> => {
  const { rows } = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${where}`.execute(db);
  return Number(rows[0]?.n ?? 0);
};

const ldm = (seqn: number) => messageXml({ sndr: "AODB", seqn, dttm: "20260305100000", type: "LDM", styp: "NONE" }, "<LDM><TEXT>load</TEXT></LDM>");

/** The pump, poller and backfill sweep over `store`, fed from an in-memory mailbox. */
function pipeline(store: PgPipelineStore, clock: ManualClock) {
  const mailbox = new InMemoryMailbox(clock);
  const deps = { mailbox, store, clock, logger: silentLogger };
  const poller = new InboxPoller(deps, { batchSize: 50, gapGraceMs: 1_000 });
  const pump = new Pump({ ...deps, decode: (raw) => decodeMessage(raw), processors: defaultProcessors(), horizon: () => poller.horizon }, { maxRun: 50 });
  const settle = async () => {
    while ((await poller.step()).full);
    while ((await pump.step()).did === "processed");
  };
  return { mailbox, poller, pump, settle, backfill: new BackfillSweeper(deps) };
}

function jobsSuite(open: (clock: ManualClock) => Promise<Db>) {
  it("the history sweep moves flights, collections included, to history with their tombstones, in bounded batches", async () => {
    const clock = new ManualClock(SWEEP);
    const t = await open(clock);
    try {
      const maintenance = new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys });
      const flights: FlightState[] = [
        { ...sampleFlight("7", 3), operationDay: "20260301" },
        { ...sampleFlight("8", 5), operationDay: "20260302", deleted: true },
        { ...sampleFlight("9", 1), operationDay: "20260303" },
      ];
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights }));
      expect(await count(t.db, "flight_gtdt")).toBe(3);
      const sweeper = new HistorySweeper({ store: maintenance, clock, logger: silentLogger }, { retentionDays: 7, airportUtcOffsetMinutes: 480, batchSize: 1 });
      const batches = [];
      for (;;) {
        const b = await sweeper.step();
        batches.push([b.retired, b.tombstones]);
        if (!b.more) break;
      }
      expect(batches).toEqual([
        [1, 1],
        [1, 0],
        [0, 0],
      ]);
      expect(await count(t.db, "flight_schd")).toBe(1);
      for (const table of ["flight_gtdt", "flight_dely"]) expect(await count(t.db, table, sql`flid IN ('7', '8')`)).toBe(0);
      expect(await count(t.db, "flight_gtdt")).toBe(1);
      expect((await maintenance.retiredFlights("7")).map((r) => [r.operationDay, r.finalState.stateVersion, r.tombstoneVersion, r.retiredAt])).toEqual([
        ["20260301", 3, 4, SWEEP],
      ]);
      const outbox = new PgOutboxStore(t.db);
      const events = [...(await outbox.pending("KAFKA:msg", SWEEP + DAY, 10)), ...(await outbox.pending("KAFKA:schd", SWEEP + DAY, 10))];
      expect(events.map((e) => [e.target, e.partitionKey, e.eventType, e.stateVersion, e.payload === null])).toEqual([
        ["KAFKA:msg", "7", "TOMBSTONE", 4, false],
        ["KAFKA:schd", "7", "TOMBSTONE", 4, true],
      ]);

      // Stated again through the pump, 7 and 8 start new lives above their last versions (7's
      // tombstone 4; 8 was deleted by FDEL at 5), so no consumer drops them as old.
      const p = pipeline(t.store, clock);
      p.mailbox.insert(adftXml(900_001, ["7", "8"]));
      await p.settle();
      expect((await t.db.selectFrom("flight_schd").select(["flid", "state_version", "deleted"]).where("flid", "in", ["7", "8"]).orderBy("flid").execute()).map((r) => [r.flid, Number(r.state_version), r.deleted])).toEqual([
        ["7", 5, false],
        ["8", 6, false],
      ]);
      const after = await outbox.pending("KAFKA:msg", SWEEP + DAY, 10);
      expect(after.filter((e) => e.eventType === "UPSERT").map((e) => [e.partitionKey, e.stateVersion])).toEqual([
        ["7", 5],
        ["8", 6],
      ]);
    } finally {
      await t.close();
    }
  });

  it("the history sweep moves the state generation on in its own transaction; a sweep that retires nothing does not", async () => {
    const clock = new ManualClock(SWEEP);
    const t = await open(clock);
    try {
      const maintenance = new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys });
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [{ ...sampleFlight("7", 3), operationDay: "20260301" }] }));
      const generation = async () => (await t.store.loadRunState([], [])).generation;
      const before = await generation();
      const sweeper = new HistorySweeper({ store: maintenance, clock, logger: silentLogger }, { retentionDays: 7, airportUtcOffsetMinutes: 480, batchSize: 10 });
      expect((await sweeper.step()).retired).toBe(1);
      const after = await generation();
      expect(after).toBeGreaterThan(before);
      expect((await sweeper.step()).retired).toBe(0);
      expect(await generation()).toBe(after);
    } finally {
      await t.close();
    }
  });

  it("a sweep batch waits for a pipeline transaction holding the lock, and retires what it committed", async () => {
    const clock = new ManualClock(SWEEP);
    const t = await open(clock);
    try {
      const maintenance = new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys });
      const v3: FlightState = { ...sampleFlight("7", 3), operationDay: "20260301" };
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [v3] }));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let loaded!: () => void;
      const inside = new Promise<void>((resolve) => (loaded = resolve));
      const run = t.store.transaction(async (tx) => {
        const f = (await tx.loadFlights(["7"])).get("7")!;
        loaded();
        await held;
        await tx.applyRun({ ...emptyRunDecision, flights: [{ ...f, stateVersion: 4, scalars: { ...f.scalars, PAXC: "181" } }] });
      });
      await inside;
      let swept = false;
      const sweep = new HistorySweeper({ store: maintenance, clock, logger: silentLogger }, { retentionDays: 7, airportUtcOffsetMinutes: 480 })
        .step()
        .then((b) => ((swept = true), b));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(swept).toBe(false);
      release();
      await run;
      expect(await sweep).toMatchObject({ retired: 1, tombstones: 1 });
      expect((await maintenance.retiredFlights("7"))[0]?.finalState.stateVersion).toBe(4);
      expect(await count(t.db, "flight_schd")).toBe(0);
    } finally {
      await t.close();
    }
  });

  it("after archiving, an archived id is never enqueued again and a re-sent identity ends SKIPPED duplicate-of it", async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 5, 2, 0));
    const t = await open(clock);
    try {
      const maintenance = new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys });
      const p = pipeline(t.store, clock);
      const first = p.mailbox.insert(ldm(7));
      p.mailbox.insert(ldm(8));
      await p.settle();
      expect(await count(t.db, "backfill_todo")).toBe(0);
      clock.advance(8 * DAY);
      const archiver = new ProcStateArchiver({ store: maintenance, pipeline: t.store, clock, logger: silentLogger }, { keepLastIds: 0 });
      expect(await archiver.step()).toEqual({ archived: [first, first + 1], more: false });
      expect(await count(t.db, "proc_state")).toBe(0);

      const again = p.mailbox.insert(ldm(7));
      await p.settle();
      expect(await t.store.get(again)).toMatchObject({ status: "SKIPPED", reason: `duplicate-of:${first}` });
      // The mailbox offers the archived row again (its write-back undone): enqueue ignores it.
      expect(await t.store.enqueue([{ msgId: first, receivedAt: clock.now() }], { horizon: again })).toEqual([]);
      expect(await t.store.get(first)).toBeUndefined();
      expect((await maintenance.archivedRecords([first]))[0]?.record.status).toBe("SKIPPED");
    } finally {
      await t.close();
    }
  });

  it("the reconciler re-registers a lost backfill (archived or live) and reports a row processed behind our back", async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 5, 2, 0));
    const t = await open(clock);
    try {
      const maintenance = new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys });
      const p = pipeline(t.store, clock);
      for (let i = 1; i <= 3; i++) p.mailbox.insert(ldm(i));
      await p.settle();
      clock.advance(8 * DAY);
      await new ProcStateArchiver({ store: maintenance, pipeline: t.store, clock, logger: silentLogger }, { keepLastIds: 0, batchSize: 1 }).step();
      for (const id of [1, 2]) p.mailbox.rows.get(id)!.processedAt = null;
      const foreign = p.mailbox.insert(ldm(50));
      p.mailbox.rows.get(foreign)!.processedAt = clock.now();
      await p.settle();

      const errors: string[] = [];
      const logger = { ...silentLogger, error: (msg: string) => void errors.push(msg) };
      const reconciler = new Reconciler({ store: maintenance, pipeline: t.store, mailbox: p.mailbox, clock, logger });
      const page = await reconciler.step();
      expect(page).toMatchObject({ backfillMissing: [1, 2], reregistered: [1, 2], processedWithoutTerminal: [{ msgId: foreign, state: "missing" }], more: false });
      expect(errors).toHaveLength(3);
      await p.backfill.step();
      expect([1, 2].map((id) => p.mailbox.rows.get(id)!.processedAt)).not.toContain(null);
      expect(await count(t.db, "backfill_todo")).toBe(0);
      expect((await reconciler.step()).backfillMissing).toEqual([]);
    } finally {
      await t.close();
    }
  });
}

describe.skipIf(!gate.available)("maintenance jobs on PostgreSQL", () => {
  jobsSuite((clock) => freshPgSchema({ clock }));
});

describe("maintenance jobs on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  // One session: the advisory lock excludes nothing there; the driver's single connection does.
  jobsSuite((clock) => pglite.freshSchema({ clock }));
});
