import { describe, expect, it, vi } from "vitest";
import { MsgxError, ReplayService, type PipelineStore, type PipelineTx, type RunDecision } from "@msgx/core";
import { PipelineWorld, sisXml } from "./pipeline-world.js";
import { InMemoryStatusReader } from "../../src/processing/in-memory-status-reader.js";

/** A store whose `applyRun` fails (not an outage) whenever it would end `poisonId` SUCCEEDED. */
function poisonWrites(store: PipelineStore, poisonId: number): PipelineStore {
  const refuse = (d: RunDecision) => {
    if (d.records.some((r) => r.msgId === poisonId && r.status === "SUCCEEDED")) {
      throw new MsgxError("INFRA", `value too long for message ${poisonId}`, { retriable: false });
    }
  };
  const applyRunFailing = (tx: PipelineTx): PipelineTx => ({
    loadRecords: (ids) => tx.loadRecords(ids),
    identityOwners: (keys) => tx.identityOwners(keys),
    loadFlights: (flids) => tx.loadFlights(flids),
    openRequests: () => tx.openRequests(),
    loadReferences: (rtypes) => tx.loadReferences(rtypes),
    appendAudit: (entry) => tx.appendAudit(entry),
    applyRun: async (d) => {
      refuse(d);
      return tx.applyRun(d);
    },
  });
  return {
    enqueue: (e, i) => store.enqueue(e, i),
    intakeState: () => store.intakeState(),
    head: () => store.head(),
    unfinished: (f, l) => store.unfinished(f, l),
    get: (id) => store.get(id),
    list: (f) => store.list(f),
    groups: (s, n) => store.groups(s, n),
    audits: (l) => store.audits(l),
    transaction: (fn, o) => store.transaction((tx) => fn(applyRunFailing(tx)), o),
    loadRunState: (k, f) => store.loadRunState(k, f),
    commitRun: async (d, o) => {
      refuse(d);
      return store.commitRun(d, o);
    },
    dueBackfill: (n, l) => store.dueBackfill(n, l),
    completeBackfill: (ids) => store.completeBackfill(ids),
    deferBackfill: (t) => store.deferBackfill(t),
  };
}

async function settle(w: PipelineWorld, steps = 50): Promise<void> {
  while ((await w.poller.step()).full);
  await w.pumpSteps(steps);
}

describe("Pump", () => {
  it("commits a run of consecutive messages in one transaction", async () => {
    const w = new PipelineWorld(200);
    for (let i = 1; i <= 4; i++) w.mailbox.insert(sisXml("valid", i));
    await w.poller.step();
    const [step] = await w.pumpSteps(1);
    expect(step).toMatchObject({ did: "processed" });
    expect(step?.did === "processed" && step.records.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
  });

  it("pins a database fault to its own message by retrying smaller runs", async () => {
    const w = new PipelineWorld(200);
    for (let i = 1; i <= 9; i++) w.mailbox.insert(sisXml(i === 5 ? "malformed" : "valid", i));
    w.wrapStore = (s) => poisonWrites(s, 7);
    w.restart();
    await settle(w);
    const status = (id: number) => w.store.get(id).then((r) => [r?.status, r?.errorClass]);
    expect(await Promise.all([1, 4, 5, 6, 7, 8].map(status))).toEqual([
      ["SUCCEEDED", null],
      ["SUCCEEDED", null],
      ["DEAD", "MALFORMED"],
      ["SUCCEEDED", null],
      ["FAILED", "INFRA"],
      ["PENDING", null],
    ]);
    expect((await w.store.get(7))?.attempts).toBe(1);
  });

  it("logs one structured error line per message that ends DEAD, with its class, and none for the others", async () => {
    const w = new PipelineWorld(200);
    for (let i = 1; i <= 4; i++) w.mailbox.insert(sisXml(i === 2 ? "malformed" : "valid", i));
    await settle(w);
    const dead = w.logger.lines.filter((l) => l.msg === "message dead");
    expect(dead).toEqual([{ level: "error", msg: "message dead", fields: expect.objectContaining({ msgId: 2, errorClass: "MALFORMED" }) }]);
  });

  it("pauses on an outage without spending attempts, then resumes in order", async () => {
    const w = new PipelineWorld(200);
    for (let i = 1; i <= 3; i++) w.mailbox.insert(sisXml("valid", i));
    await w.poller.step();
    w.mailbox.faults.setDown(true);
    for (let i = 0; i < 50; i++) {
      const [s] = await w.pumpSteps(1);
      expect(s?.did).toBe("outage");
      w.clock.advance(20_000);
    }
    const before = await w.store.get(1);
    expect(before).toMatchObject({ status: "PENDING", attempts: 0 });
    w.mailbox.faults.setDown(false);
    await settle(w);
    expect(w.store.tables.terminalLog.map((t) => [t.msgId, t.status])).toEqual([
      [1, "SUCCEEDED"],
      [2, "SUCCEEDED"],
      [3, "SUCCEEDED"],
    ]);
  });

  it("does not exhaust a FAILED head because of an outage that outlasted the deadline", async () => {
    const w = new PipelineWorld(1);
    w.mailbox.insert(sisXml("poison", 1));
    w.poisoned.add(1);
    await settle(w, 1);
    expect((await w.store.get(1))?.status).toBe("FAILED");
    w.store.faults.setDown(true);
    for (let i = 0; i < 30; i++) {
      w.clock.advance(60_000);
      await w.pumpSteps(1);
    }
    w.store.faults.setDown(false);
    w.poisoned.clear();
    w.clock.advance(30_000);
    await settle(w);
    expect(await w.store.get(1)).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
  });

  it("replays EXHAUSTED messages with preview, audit and kept identity; refuses MALFORMED", async () => {
    // An unknown TYPE exhausts its own short budget (3 attempts), audited by the pipeline.
    const w = new PipelineWorld(200);
    w.mailbox.insert(sisXml("unsupported", 1));
    w.mailbox.insert(sisXml("malformed", 2));
    await w.poller.step();
    for (let i = 0; i < 10; i++) {
      await w.pumpSteps(5);
      w.clock.advance(20_000);
    }
    expect(await w.store.get(1)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", identityKey: "AODB|ZZZZ|NONE|1" });
    const replay = new ReplayService({ store: w.store, clock: w.clock });
    const preview = await replay.preview({ msgIds: [1, 2] });
    expect(preview.map((p) => [p.msgId, p.eligible])).toEqual([
      [1, true],
      [2, false],
    ]);
    const result = await replay.replay({ msgIds: [1, 2] }, "alice");
    expect(result.replayed).toEqual([1]);
    expect(result.refused.map((r) => r.msgId)).toEqual([2]);
    expect(await w.store.get(1)).toMatchObject({ status: "PENDING", attempts: 0, identityKey: "AODB|ZZZZ|NONE|1" });
    // One attempt, then its 10 s head deadline (the clock moves 20 s a round): exhausted.
    expect((await w.store.get(1))?.history.map((h) => h.errorClass)).toEqual(["UNSUPPORTED", "EXHAUSTED"]);
    expect(await w.store.audits(5)).toMatchObject([
      { operator: "alice", action: "replay", msgIds: [1] },
      { operator: "msgx", action: "unsupported-exhausted", msgIds: [1] },
    ]);
    // Retried after replay, it is not called a duplicate of itself.
    await w.pumpSteps(1);
    expect((await w.store.get(1))?.reason).toMatch(/^unsupported:/);
  });

  it("returns once the run committed; the write-back runs behind it, one at a time, and an idle step ends with none left", async () => {
    const w = new PipelineWorld(1);
    for (let i = 1; i <= 2; i++) w.mailbox.insert(sisXml("valid", i));
    await w.poller.step();
    const original = w.mailbox.backfill.bind(w.mailbox);
    const releases: (() => void)[] = [];
    const order: string[] = [];
    w.mailbox.backfill = async (entries) => {
      order.push(`backfill ${entries.map((e) => e.msgId).join(",")} started`);
      await new Promise<void>((r) => releases.push(r));
      order.push(`backfill ${entries.map((e) => e.msgId).join(",")} done`);
      return original(entries);
    };
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 1, status: "SUCCEEDED" }] });
    // Committed, write-back still running: the todo is the record of it.
    expect(w.mailbox.rows.get(1)?.processedAt).toBeNull();
    expect(w.store.tables.backfill.has(1)).toBe(true);
    // The next run is committed while the first write-back is still running, without waiting for it ...
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 2 }] });
    expect(order).toEqual(["backfill 1 started"]);
    // ... and its own write-back starts only once the first one is done: a step with nothing to do
    // waits for the running one, starts what waited behind it, and ends with none left.
    const idle = w.pump.step();
    releases.shift()!();
    await vi.waitFor(() => expect(releases).toHaveLength(1));
    expect(order).toEqual(["backfill 1 started", "backfill 1 done", "backfill 2 started"]);
    releases.shift()!();
    expect(await idle).toEqual({ did: "idle" });
    expect(w.mailbox.rows.get(2)?.processedAt).not.toBeNull();
    expect(w.store.tables.backfill.size).toBe(0);
  });

  it("with a backfill delay, writes committed runs back in one batch once its first todo is due or the batch is full, and all of it at a stop", async () => {
    const w = new PipelineWorld(1, undefined, { pump: { backfill: { delayMs: 500, maxBatch: 3 } } });
    for (let i = 1; i <= 6; i++) w.mailbox.insert(sisXml("valid", i));
    // The poller takes 4 rows a step.
    await w.poller.step();
    await w.poller.step();
    const calls: number[][] = [];
    const original = w.mailbox.backfill.bind(w.mailbox);
    w.mailbox.backfill = async (entries) => {
      calls.push(entries.map((e) => e.msgId));
      return original(entries);
    };
    expect(w.pump.backfillDueAt()).toBeNull();
    const t0 = w.clock.now();
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 1 }] });
    w.clock.advance(100);
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 2 }] });
    // Not due yet: nothing written back; the pump says when the driver must call it again.
    expect(calls).toEqual([]);
    expect(w.pump.backfillDueAt()).toBe(t0 + 500);
    // The third todo fills the batch: written back at once, whatever its age.
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 3 }] });
    expect(calls).toEqual([[1, 2, 3]]);
    expect(w.pump.backfillDueAt()).toBeNull();
    // One more; an idle step before it is due leaves it pending ...
    const t1 = w.clock.now();
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 4 }] });
    expect(w.pump.backfillDueAt()).toBe(t1 + 500);
    w.clock.advance(499);
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 5 }] });
    expect(calls).toEqual([[1, 2, 3]]);
    // ... and the step at its due time writes it back.
    w.clock.advance(1);
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 6 }] });
    expect(await w.pump.step()).toEqual({ did: "idle" });
    expect(calls).toEqual([[1, 2, 3], [4, 5, 6]]);
    expect(w.store.tables.backfill.size).toBe(0);
    expect([...w.mailbox.rows.values()].every((r) => r.processedAt !== null)).toBe(true);
  });

  it("with a backfill delay, a stopping pump writes back what is pending, however young", async () => {
    const w = new PipelineWorld(1, undefined, { pump: { backfill: { delayMs: 60_000, maxBatch: 500 } } });
    for (let i = 1; i <= 2; i++) w.mailbox.insert(sisXml("valid", i));
    await w.poller.step();
    const committedAt = w.clock.now();
    await w.pumpSteps(3);
    expect(w.store.tables.backfill.size).toBe(2);
    expect(w.mailbox.rows.get(1)?.processedAt).toBeNull();
    // The status reports the debt and its oldest commit, which the backfill alert ages.
    const status = new InMemoryStatusReader(w.store);
    expect(await status.status()).toMatchObject({ backfillDebt: 2, oldestBackfillAt: committedAt });
    await w.pump.settle();
    expect(await status.status()).toMatchObject({ backfillDebt: 0, oldestBackfillAt: null });
    expect(w.store.tables.backfill.size).toBe(0);
    expect(w.mailbox.rows.get(2)?.processedAt).not.toBeNull();
    expect(w.pump.backfillDueAt()).toBeNull();
  });

  it("leaves the backfill to the sweep when the mailbox is down after commit, and the sweep drains it", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(sisXml("valid", 1));
    await w.poller.step();
    w.mailbox.faults.failNext("backfill", 1, "DEPENDENCY_UNAVAILABLE");
    await w.pumpSteps(1);
    expect((await w.store.get(1))?.status).toBe("SUCCEEDED");
    expect(w.store.tables.backfill.size).toBe(1);
    expect(w.mailbox.rows.get(1)?.processedAt).toBeNull();
    w.mailbox.faults.setDown(true);
    w.clock.advance(30_000);
    expect(await w.sweeper.step()).toEqual({ done: 0, deferred: 1 });
    expect(w.store.tables.backfill.get(1)).toMatchObject({ attempts: 1, lastError: expect.stringContaining("down") });
    w.mailbox.faults.setDown(false);
    w.clock.advance(29_000);
    expect(await w.sweeper.step()).toEqual({ done: 0, deferred: 0 });
    w.clock.advance(1_000);
    expect(await w.sweeper.step()).toEqual({ done: 1, deferred: 0 });
    expect(w.mailbox.rows.get(1)?.processedAt).not.toBeNull();
  });
  describe("the leader's memory (fast path)", () => {
    /** The store with each call the pump makes counted by method. */
    const counted = (w: PipelineWorld): Map<string, number> => {
      const calls = new Map<string, number>();
      w.wrapStore = (store) =>
        new Proxy(store, {
          get: (t, key) => {
            const v: unknown = Reflect.get(t, key);
            if (typeof v !== "function") return v;
            return (...args: unknown[]) => {
              calls.set(String(key), (calls.get(String(key)) ?? 0) + 1);
              return (v as (...a: unknown[]) => unknown).apply(t, args);
            };
          },
        });
      w.restart();
      return calls;
    };
    const run = async (w: PipelineWorld, calls: Map<string, number>, seqns: number[], kind: "valid" | "ignorable" = "valid") => {
      for (const seqn of seqns) w.mailbox.insert(sisXml(kind, seqn));
      await w.poller.step();
      calls.clear();
      await w.pumpSteps(1);
      return Object.fromEntries([...calls].filter(([k]) => ["loadRunState", "commitRun", "transaction"].includes(k)));
    };

    it("reads owners and flights once; a warm leader commits a run in one commitRun and nothing else", async () => {
      const w = new PipelineWorld(200);
      const calls = counted(w);
      expect(await run(w, calls, [1, 2])).toEqual({ loadRunState: 1, commitRun: 1 });
      // A resend whose owner and flight it holds: decided from memory alone.
      expect(await run(w, calls, [1])).toEqual({ commitRun: 1 });
      expect((await w.store.get(3))?.reason).toBe("duplicate-of:1");
      expect(await run(w, calls, [3, 4])).toEqual({ loadRunState: 1, commitRun: 1 });
      expect(w.pump.memory.sizes).toEqual({ flights: 4, identities: 4 });
    });

    it("takes a key it does not hold as unbound; the store refuses the binding, the owner is loaded and the run decided again", async () => {
      const w = new PipelineWorld(200);
      const calls = counted(w);
      await run(w, calls, [1]);
      w.restart();
      // A new pump holds nothing: one load for the flight, a refusal naming the key, one load of its owner.
      expect(await run(w, calls, [1])).toEqual({ loadRunState: 2, commitRun: 2 });
      expect((await w.store.get(2))?.reason).toBe("duplicate-of:1");
      expect(w.store.tables.identities.get("AODB|FLOP|ESTT|1")).toBe(1);
    });

    it("after a transaction of another writer, loads again and decides from the store's state", async () => {
      const w = new PipelineWorld(200);
      const calls = counted(w);
      await run(w, calls, [1]);
      await new ReplayService({ store: w.store, clock: w.clock }).replay({ msgIds: [1] }, "ops").catch(() => undefined);
      await w.store.transaction(async (tx) => tx.appendAudit({ at: 0, operator: "ops", action: "note", msgIds: [], detail: "" }));
      // Nothing to load for a message without flights: decided from memory, refused (the generation
      // moved on), the memory dropped and loaded again, decided again.
      expect(await run(w, calls, [2], "ignorable")).toEqual({ commitRun: 2, loadRunState: 1 });
      expect((await w.store.get(2))?.status).toBe("SKIPPED");
    });
  });
});

describe("InboxPoller", () => {
  it("follows a full batch at once and enqueues everything without reading text", async () => {
    const w = new PipelineWorld(200);
    for (let i = 1; i <= 10; i++) w.mailbox.insert(sisXml("valid", i));
    const results = [await w.poller.step(), await w.poller.step(), await w.poller.step()];
    expect(results.map((r) => r.full)).toEqual([true, true, false]);
    expect(results.at(-1)?.horizon).toBe(10);
  });

  it("looks at a gap once more before giving it up, even beyond the first batch above the horizon", async () => {
    const w = new PipelineWorld(1);
    const first = w.mailbox.reserve(sisXml("valid", 1));
    for (let i = 2; i <= 5; i++) w.mailbox.insert(sisXml("valid", i));
    await w.poller.step();
    w.mailbox.rollback(first);
    const second = w.mailbox.reserve(sisXml("valid", 6));
    w.mailbox.insert(sisXml("valid", 7));
    await w.poller.step();
    w.mailbox.commit(second);
    // Both gaps are past their grace now; the second one has filled in the meantime.
    w.clock.advance(6_000);
    for (let i = 0; i < 4; i++) {
      await w.poller.step();
      await w.pumpSteps(20);
    }
    expect(w.store.tables.terminalLog.map((t) => t.msgId)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  /** Id 1 reserved (its insert open), id 2 committed, one poll: the horizon waits at 0 for the gap. */
  const withOpenGap = async () => {
    const w = new PipelineWorld(200);
    const open = w.mailbox.reserve(sisXml("valid", 1));
    w.mailbox.insert(sisXml("valid", 2));
    await w.poller.step();
    expect(w.poller.horizon).toBe(0);
    return { w, open };
  };

  it("times the gap grace on the monotonic clock: a wall-clock jump past the grace, either way, passes no open insert", async () => {
    const { w, open } = await withOpenGap();
    w.clock.jump(60_000);
    await w.poller.step();
    w.clock.jump(-120_000);
    await w.poller.step();
    expect(w.poller.horizon).toBe(0);
    w.mailbox.commit(open);
    await w.poller.step();
    expect(w.poller.horizon).toBe(2);
    await w.pumpSteps(5);
    expect(w.store.tables.terminalLog.map((t) => t.msgId)).toEqual([open, 2]);
  });

  it("never loses a row that commits after its gap was given up", async () => {
    const { w, open: late } = await withOpenGap();
    w.clock.advance(6_000);
    await w.poller.step();
    expect(w.poller.horizon).toBe(2);
    await w.pumpSteps(5);
    w.mailbox.commit(late);
    w.clock.advance(10_000);
    const r = await w.poller.step();
    expect(r.enqueued).toContain(late);
    await w.pumpSteps(5);
    expect((await w.store.get(late))?.status).toBe("SUCCEEDED");
  });

});
