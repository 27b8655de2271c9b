/**
 * Leadership (SPEC §2.8): one leader per database by a session advisory lock on a dedicated
 * connection; a fencing epoch checked inside every pipeline transaction; standbys take over.
 */
import { defaultProcessors, emptyRunDecision, ProcStatus } from "@msgx/core";
import { gateService, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { lockKeys, type PgLeadership } from "../src/index.js";
import { freshPgSchema, probePostgres, type PgTestDb } from "./pg-harness.js";
import { drain, fakeSnapshot, makePump, pgSnapshot, rigPump } from "./pump-drive.js";
import { adftXml, estt } from "./sis-stream.arbitraries.js";

const gate = await gateService("PostgreSQL", "adapters-pg: leadership", probePostgres);

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const processors = defaultProcessors();
const LEAD_FLIDS = Array.from({ length: 9 }, (_, i) => String(900100 + i));
/** #1 creates nine flights; every later message changes one of them. */
const stream = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? adftXml(1, LEAD_FLIDS) : estt(i + 1, LEAD_FLIDS[i % 9]!)));

describe.skipIf(!gate.available)("PgLeadership", () => {
  let t: PgTestDb;
  let clock: ManualClock;
  const electors: PgLeadership[] = [];
  const elector = (holder: string) => {
    const e = t.leadership(holder, 100);
    electors.push(e);
    return e;
  };
  beforeAll(async () => {
    clock = new ManualClock();
    t = await freshPgSchema({ clock: { now: () => clock.now() } });
  });
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.release()));
    await t.reset();
    clock = new ManualClock();
  });
  afterAll(() => t.close());

  /** Ends the backend that holds the leadership lock, as a network cut or a DBA would. */
  async function killLeaderConnection(): Promise<number> {
    const [cls, obj] = lockKeys(t.schema).leadership;
    const { rows } = await sql<{ pid: number }>`
      SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND classid = ${cls >>> 0}::bigint::oid AND objid = ${obj >>> 0}::bigint::oid AND objsubid = 2`.execute(t.db);
    expect(rows).toHaveLength(1);
    await sql`SELECT pg_terminate_backend(${rows[0]!.pid}::integer)`.execute(t.db);
    return rows[0]!.pid;
  }

  it("grants the lock to one process at a time; each grant raises the epoch", async () => {
    const a = elector("A");
    const b = elector("B");
    const e1 = await a.acquire();
    expect(e1).toBe(1);
    expect(await b.acquire()).toBeUndefined();
    expect(await a.acquire()).toBe(e1);
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    const standby = b.acquireWhenFree({ pollMs: 25 });
    await a.release();
    const e2 = await standby;
    expect(e2).toBe(2);
    expect(b.epoch).toBe(2);
    const row = (await sql<{ epoch: string; holder: string }>`SELECT epoch::text, holder FROM leadership`.execute(t.db)).rows[0];
    expect(row).toEqual({ epoch: "2", holder: "B" });
  });

  it("hands over when the leader's connection is killed mid-run: the standby continues from the head, the old leader is fenced", async () => {
    const raws = stream(60);
    const a = elector("A");
    const b = elector("B");
    const e1 = (await a.acquire())!;
    let lost: string | undefined;
    a.watch((reason) => (lost = reason));
    const rigA = await rigPump(t.store, clock, raws, { maxRun: 10, processors, fence: e1 });
    expect((await rigA.pump.step()).did).toBe("processed");
    expect((await rigA.pump.step()).did).toBe("processed");
    expect((await t.store.head())?.msgId).toBe(21);

    const standby = b.acquireWhenFree({ pollMs: 25 });
    await killLeaderConnection();
    await until("loss report", () => lost !== undefined);
    expect(lost).toMatch(/leadership (connection|heartbeat)/);
    expect(a.isLeader).toBe(false);
    const e2 = await standby;
    expect(e2).toBeGreaterThan(e1);

    // The old leader's pump still runs, but every commit it tries is refused and writes nothing.
    const before = await pgSnapshot(t.store, t.db);
    expect(await rigA.pump.step()).toMatchObject({ did: "fenced" });
    expect(await pgSnapshot(t.store, t.db)).toEqual(before);

    // The new leader's pump (same mailbox) picks up at message 21 and finishes.
    await drain({ ...rigA, pump: makePump(t.store, clock, rigA.mailbox, { maxRun: 10, processors, fence: e2 }) });
    const after = await pgSnapshot(t.store, t.db);
    expect(after.records.map((r) => r.status)).toEqual(raws.map(() => ProcStatus.SUCCEEDED));

    // Exactly what one uninterrupted leader leaves.
    const refClock = new ManualClock();
    const ref = new InMemoryPipelineStore(refClock);
    await drain(await rigPump(ref, refClock, raws, { maxRun: 10, processors }));
    expect(after).toEqual(fakeSnapshot(ref));
  });

  it("serializes a takeover with the old leader's open transaction: it commits wholly before, or is fenced", async () => {
    await t.store.enqueue([{ msgId: 1, receivedAt: clock.now() }, { msgId: 2, receivedAt: clock.now() }], { horizon: 2 });
    const a = elector("A");
    const b = elector("B");
    const e1 = (await a.acquire())!;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    const one = (await t.store.get(1))!;
    const commitA = t.store.transaction(
      async (tx) => {
        await tx.applyRun({ ...emptyRunDecision, records: [{ ...one, status: ProcStatus.SUCCEEDED, updatedAt: clock.now() }] });
        inside();
        await held;
      },
      { fence: e1 },
    );
    await entered;
    await killLeaderConnection();
    let e2: number | undefined;
    const takeover = b.acquireWhenFree({ pollMs: 25 }).then((e) => (e2 = e));
    await new Promise((r) => setTimeout(r, 300));
    // B holds the session lock but its epoch bump waits for A's transaction (the pipeline lock).
    expect(e2).toBeUndefined();
    release();
    await commitA;
    await takeover;
    expect(e2).toBe(e1 + 1);
    expect((await t.store.get(1))?.status).toBe(ProcStatus.SUCCEEDED);
    const two = (await t.store.get(2))!;
    await expect(
      t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [{ ...two, status: ProcStatus.SUCCEEDED }] }), { fence: e1 }),
    ).rejects.toMatchObject({ kind: "FENCED" });
    expect((await t.store.get(2))?.status).toBe(ProcStatus.PENDING);
  });
});
