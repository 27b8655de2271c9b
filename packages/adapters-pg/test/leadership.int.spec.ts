/**
 * Leadership (SPEC §2.8, issue 24): one leader per database by a lease on the `leadership` row
 * timed by the database clock; a fencing epoch checked inside every pipeline transaction; a
 * standby takes over once the lease lapses, and the old leader steps down.
 */
import { defaultProcessors, emptyRunDecision, ProcStatus, type LeaseStore } from "@msgx/core";
import { gateService, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bumpLeadershipEpoch, type PgLeadership } from "../src/index.js";
import { losesFirstGrantAnswer } from "./lost-grant-answer.js";
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

/** A short lease: renewed every 300 ms, a leader trusts it 720 ms from each renewal it sent. */
const TTL_MS = 900;
const processors = defaultProcessors();
const LEAD_FLIDS = Array.from({ length: 9 }, (_, i) => String(900100 + i));
/** #1 creates nine flights; every later message changes one of them. */
const stream = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? adftXml(1, LEAD_FLIDS) : estt(i + 1, LEAD_FLIDS[i % 9]!)));

describe.skipIf(!gate.available)("PgLeadership", () => {
  let t: PgTestDb;
  let clock: ManualClock;
  const electors: PgLeadership[] = [];
  const elector = (holder: string, wrap?: (store: LeaseStore) => LeaseStore) => {
    const e = t.leadership(holder, TTL_MS, wrap);
    electors.push(e);
    return e;
  };
  beforeAll(async () => {
    clock = new ManualClock();
    t = await freshPgSchema({ clock: { now: () => clock.now(), monotonic: () => clock.monotonic() } });
  });
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.release()));
    await t.reset();
    clock = new ManualClock();
  });
  afterAll(() => t.close());

  /** A process frozen (SIGSTOP) as its lease store sees it: from `freeze()` on, none of its calls reaches the database. */
  function freezable(): { wrap: (store: LeaseStore) => LeaseStore; freeze(): void } {
    let frozen = false;
    const never = new Promise<never>(() => undefined);
    return {
      freeze: () => void (frozen = true),
      wrap: (store) => ({
        tryAcquire: (h, ttl) => (frozen ? never : store.tryAcquire(h, ttl)),
        renew: (h, e, ttl) => (frozen ? never : store.renew(h, e, ttl)),
        release: (h, e) => (frozen ? Promise.resolve() : store.release(h, e)),
      }),
    };
  }

  it("grants the lease to one process at a time; each grant raises the epoch; release hands it over at once", async () => {
    const a = elector("A");
    const b = elector("B");
    const e1 = await a.acquire();
    expect(e1).toBe(1);
    expect(await b.acquire()).toBeUndefined();
    expect(await a.acquire()).toBe(e1);
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    await new Promise((r) => setTimeout(r, TTL_MS * 2)); // renewals keep it
    expect(await b.acquire()).toBeUndefined();
    const standby = b.acquireWhenFree({ pollMs: 25 });
    await a.release();
    const e2 = await standby;
    expect(e2).toBe(2);
    expect(b.epoch).toBe(2);
    const row = (await sql<{ epoch: string; holder: string }>`SELECT epoch::text, holder FROM leadership`.execute(t.db)).rows[0];
    expect(row).toEqual({ epoch: "2", holder: "B" });
  });

  it("a standby whose grant's answer is lost (COMMIT_UNKNOWN) asks again: it finds it holds the lease and leads", async () => {
    let lossy!: ReturnType<typeof losesFirstGrantAnswer>;
    const a = elector("A", (store) => (lossy = losesFirstGrantAnswer(store)).store);
    const b = elector("B");
    const epoch = await a.acquireWhenFree({ pollMs: 25 });
    // The lost grant was epoch 1; the retry found A holding it and granted again.
    expect([epoch, lossy.answers(), a.isLeader]).toEqual([2, 2, true]);
    const row = (await sql<{ epoch: string; holder: string }>`SELECT epoch::text, holder FROM leadership`.execute(t.db)).rows[0];
    expect(row).toEqual({ epoch: "2", holder: "A" });
    expect(await b.acquire()).toBeUndefined();
  });

  it("hands over when the leader freezes mid-run: it stops leading within its window, the standby continues from the head after the lease, the old leader is fenced", async () => {
    const raws = stream(60);
    const frozen = freezable();
    const a = elector("A", frozen.wrap);
    const b = elector("B");
    const e1 = (await a.acquire())!;
    let lost: string | undefined;
    a.watch((reason) => (lost = reason));
    const rigA = await rigPump(t.store, clock, raws, { maxRun: 10, processors, fence: e1 });
    expect((await rigA.pump.step()).did).toBe("processed");
    expect((await rigA.pump.step()).did).toBe("processed");
    expect((await t.store.head())?.msgId).toBe(21);

    const standby = b.acquireWhenFree({ pollMs: 25 });
    frozen.freeze();
    await until("loss report", () => lost !== undefined);
    expect(lost).toMatch(/not renewed in time/);
    expect([a.isLeader, a.mayLead()]).toEqual([false, false]);
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
    const frozenA = freezable();
    const a = elector("A", frozenA.wrap);
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
    // A froze inside its transaction (it holds the pipeline lock) and its lease lapsed.
    frozenA.freeze();
    await sql`UPDATE leadership SET lease_until = clock_timestamp() - interval '1 millisecond'`.execute(t.db);
    let e2: number | undefined;
    const takeover = b.acquireWhenFree({ pollMs: 25 }).then((e) => (e2 = e));
    await new Promise((r) => setTimeout(r, 300));
    // B found the lease lapsed, but its epoch bump waits for A's transaction (the pipeline lock).
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

  it("a leader whose renewal is refused (another epoch holds the pipeline) reports the loss once and stops leading", async () => {
    const a = elector("A");
    const e1 = (await a.acquire())!;
    const reasons: string[] = [];
    a.watch((why) => reasons.push(why));
    await bumpLeadershipEpoch(t.db, { lockNamespace: t.schema, holder: "operator" });
    await until("loss report", () => reasons.length > 0);
    await new Promise((r) => setTimeout(r, TTL_MS));
    expect(reasons).toEqual([`renewal refused (epoch ${e1}): the lease is held with epoch ${e1 + 1} by operator`]);
    expect(a.mayLead()).toBe(false);
  });
});
