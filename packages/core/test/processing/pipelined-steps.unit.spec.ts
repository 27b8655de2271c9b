import { describe, expect, it } from "vitest";
import { sis, sodtMarch } from "../jobs/maintenance-world.js";
import { LeaderWorld } from "./leader-memory-world.js";

/**
 * A pipelined world (intake in process, runs of two): a flight created and the pump's memory and
 * list of unfinished records loaded by a first run, then four updates of it enqueued (the last a
 * delete, which gives an event whatever came before), the first
 * two committed while the two behind them were speculated on; the mailbox's reads counted.
 */
async function fourUpdates() {
  const w = new LeaderWorld(true, "none", { inProcess: true, maxRun: 2, instantBreaker: true });
  const now = w.clock.now();
  w.mailbox.insert(sis.adft(1, "101", sodtMarch(5), now));
  await w.steps(1);
  for (let seqn = 2; seqn <= 4; seqn++) w.mailbox.insert(sis.estt(seqn, "101", now));
  w.mailbox.insert(sis.fdel(5, "101", now));
  const reads: number[][] = [];
  const readRaw = w.mailbox.readRaw.bind(w.mailbox);
  w.mailbox.readRaw = (ids) => {
    reads.push([...ids]);
    return readRaw(ids);
  };
  await w.steps(1);
  expect(w.speculations).toEqual({ started: 1, decided: 0, read: 0, discarded: 0 });
  return { w, reads };
}

describe("pipelined steps", () => {
  it("pauses (PumpDeps.pause) after sending a commit and before reading the run behind it, so the commit leaves first", async () => {
    const log: string[] = [];
    const w = new LeaderWorld(true, "none", { inProcess: true, maxRun: 2, instantBreaker: true, pause: async () => void log.push("pause") });
    const now = w.clock.now();
    w.mailbox.insert(sis.adft(1, "101", sodtMarch(5), now));
    await w.steps(1);
    for (let seqn = 2; seqn <= 4; seqn++) w.mailbox.insert(sis.estt(seqn, "101", now));
    w.mailbox.insert(sis.fdel(5, "101", now));
    const commitRun = w.pipeline.commitRun.bind(w.pipeline);
    w.pipeline.commitRun = (decision, options) => {
      log.push(`commit ${decision.records.map((r) => r.msgId).join(",")}`);
      return commitRun(decision, options);
    };
    const readRaw = w.mailbox.readRaw.bind(w.mailbox);
    w.mailbox.readRaw = (ids) => {
      log.push(`read ${ids.join(",")}`);
      return readRaw(ids);
    };
    log.length = 0;
    await w.steps(1);
    expect(w.speculations).toMatchObject({ started: 1 });
    // The step's own read, its commit, then the pause, then the speculation's read.
    expect(log).toEqual(["read 2,3", "commit 2,3", "pause", "read 4,5"]);
  });

  it("reads and decides the run behind while a run commits; the next step commits that decision without a read", async () => {
    const { w, reads } = await fourUpdates();
    // Run [2, 3] read by its step, run [4, 5] read behind it while [2, 3] committed.
    expect(reads).toEqual([[2, 3], [4, 5]]);
    // The targets to wake are the committed decision's: the speculation's processor calls were made in the step before.
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 4 }, { msgId: 5 }], targets: ["KAFKA:msg", "KAFKA:schd"] });
    expect(reads).toEqual([[2, 3], [4, 5]]);
    expect(w.speculations).toEqual({ started: 1, decided: 1, read: 0, discarded: 0 });
    expect([...w.pipeline.tables.records.values()].map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
  });

  it("reads and decides a run again whose speculated decision the store did not commit", async () => {
    const { w, reads } = await fourUpdates();
    w.pipeline.faults.failNext("commitRun", 1, "DEPENDENCY_UNAVAILABLE");
    // Run [4, 5] is sent as decided, and fails with the outage (nothing is behind it to speculate on).
    expect(await w.pump.step()).toMatchObject({ did: "outage" });
    expect(w.speculations).toEqual({ started: 1, decided: 1, read: 0, discarded: 0 });
    // The outage dropped the memory: [4, 5] is read and decided again, from the store.
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 4 }, { msgId: 5 }] });
    expect(reads).toEqual([[2, 3], [4, 5], [4, 5]]);
  });

  it("discards the speculation behind a run whose commit failed: that run is the next step's again", async () => {
    const w = new LeaderWorld(true, "none", { inProcess: true, maxRun: 2, instantBreaker: true });
    const now = w.clock.now();
    w.mailbox.insert(sis.adft(1, "101", sodtMarch(5), now));
    await w.steps(1);
    for (let seqn = 2; seqn <= 5; seqn++) w.mailbox.insert(sis.estt(seqn, "101", now));
    w.pipeline.faults.failNext("commitRun", 1, "DEPENDENCY_UNAVAILABLE");
    await w.steps(1);
    expect(w.speculations).toEqual({ started: 1, decided: 0, read: 0, discarded: 0 });
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 2 }, { msgId: 3 }] });
    expect(await w.pump.step()).toMatchObject({ did: "processed", records: [{ msgId: 4 }, { msgId: 5 }] });
    // The failure made the pump ask the store for its runs; the query at its limit is kept as a
    // prefix (`KnownUnfinished`), so [4, 5] was speculated on behind [2, 3] and committed as decided.
    expect(w.speculations).toEqual({ started: 2, decided: 1, read: 0, discarded: 1 });
  });

  it("decides again, from the same read, a speculation older than its limit", async () => {
    const { w, reads } = await fourUpdates();
    w.clock.advance(1_000);
    await w.steps(1);
    expect(w.speculations).toEqual({ started: 1, decided: 0, read: 1, discarded: 0 });
    expect(reads).toEqual([[2, 3], [4, 5]]);
    // Decided at the step's own time, not the speculation's.
    expect(w.pipeline.tables.records.get(5)?.updatedAt).toBe(w.clock.now());
  });

  it("sends a speculated decision the store then refuses when a writer beside the leader moved the generation on; decides again", async () => {
    const { w } = await fourUpdates();
    await w.adminFlight(0);
    await w.steps(1);
    expect(w.speculations).toMatchObject({ decided: 1 });
    expect(w.answers.staleGeneration).toBe(1);
    // Decided again from the store: the operator's change is kept.
    expect(w.pipeline.tables.flights.get("101")?.scalars["STND"]).toBe("A0");
    expect(w.pipeline.tables.records.get(5)?.status).toBe("SUCCEEDED");
  });

  it("discards a speculation whose run changed: a record enqueued behind it joins the run", async () => {
    const w = new LeaderWorld(true, "none", { inProcess: true, maxRun: 2 });
    const now = w.clock.now();
    w.mailbox.insert(sis.adft(1, "101", sodtMarch(5), now));
    await w.steps(1);
    for (let seqn = 2; seqn <= 4; seqn++) w.mailbox.insert(sis.estt(seqn, "101", now));
    await w.steps(1);
    w.mailbox.insert(sis.estt(5, "101", now));
    await w.steps(1);
    expect(w.speculations).toEqual({ started: 1, decided: 0, read: 0, discarded: 1 });
    expect([...w.pipeline.tables.records.values()].map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
  });

  it("uses only the read when the memory misses a flight the run behind needs", async () => {
    const w = new LeaderWorld(true, "none", { inProcess: true, maxRun: 2 });
    const now = w.clock.now();
    w.mailbox.insert(sis.adft(1, "101", sodtMarch(5), now));
    await w.steps(1);
    w.mailbox.insert(sis.estt(2, "101", now));
    w.mailbox.insert(sis.estt(3, "101", now));
    w.mailbox.insert(sis.adft(4, "102", sodtMarch(5), now));
    await w.steps(2);
    expect(w.speculations).toEqual({ started: 1, decided: 0, read: 1, discarded: 0 });
    expect(w.pipeline.tables.flights.has("102")).toBe(true);
  });

  it("speculates through a backlog bigger than one run query: the query at its limit leaves a known prefix", async () => {
    // A pump that starts behind a backlog of ten runs of two (a new leader, or a restart): nothing
    // of it went through this pump's enqueues, so every run comes from a query at its limit.
    const w = new LeaderWorld(true, "none", { inProcess: true, maxRun: 2 });
    const now = w.clock.now();
    w.mailbox.insert(sis.adft(1, "101", sodtMarch(5), now));
    for (let seqn = 2; seqn <= 20; seqn++) w.mailbox.insert(sis.estt(seqn, "101", now));
    await w.drain();
    expect([...w.pipeline.tables.records.values()].every((r) => r.status === "SUCCEEDED")).toBe(true);
    // Every run but the first was speculated on behind the run before it and committed as decided.
    expect(w.speculations).toEqual({ started: 9, decided: 9, read: 0, discarded: 0 });
  });
});
