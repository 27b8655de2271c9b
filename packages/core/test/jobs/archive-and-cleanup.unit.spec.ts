import { DEFAULT_RETRY_POLICY, emptyRunDecision, isMsgxError, silentLogger } from "@msgx/core";
import { evolveProc } from "@msgx/core/testing";
import { ManualClock } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { InMemoryMaintenanceStore } from "../../src/jobs/in-memory-maintenance-store.js";
import { ProcStateArchiver } from "../../src/jobs/proc-state-archiver.js";
import { SnapLogCleaner } from "../../src/jobs/snap-log-cleaner.js";
import { MaintenanceWorld, sis } from "./maintenance-world.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 20, 2, 0);

function rig(fence?: number) {
  const clock = new ManualClock(T0 - 30 * DAY);
  const pipeline = new InMemoryPipelineStore(clock);
  const store = new InMemoryMaintenanceStore(pipeline, clock);
  const deps = { store, pipeline, clock, logger: silentLogger, ...(fence === undefined ? {} : { fence }) };
  /** Enqueues ids (horizon = the largest) and ends each SUCCEEDED at `at`. */
  const succeed = async (ids: number[], at: number) => {
    await pipeline.enqueue(ids.map((msgId) => ({ msgId, receivedAt: at })), { horizon: Math.max(...ids) });
    const records = ids.map((id) => evolveProc(pipeline.tables.records.get(id)!, { type: "succeeded" }, { now: at }, DEFAULT_RETRY_POLICY));
    await pipeline.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records }));
  };
  return { clock, pipeline, store, deps, succeed };
}

describe("ProcStateArchiver", () => {
  it("archives terminal records older than the retention, keeping the newest ids below the horizon live", async () => {
    const r = rig();
    await r.succeed([1, 2, 3, 4, 5, 6], T0 - 10 * DAY);
    await r.succeed([7], T0 - DAY);
    r.clock.set(T0);
    const archiver = new ProcStateArchiver(r.deps, { keepLastIds: 3, batchSize: 2 });
    expect(await archiver.step()).toEqual({ archived: [1, 2], more: true });
    expect(await archiver.step()).toEqual({ archived: [3, 4], more: true });
    expect(await archiver.step()).toEqual({ archived: [], more: false });
    // Horizon 7, keep 3: 5 and 6 stay however old; 7 is too young.
    expect([...r.pipeline.tables.records.keys()].sort()).toEqual([5, 6, 7]);
    expect([...r.pipeline.archive.keys()]).toEqual([1, 2, 3, 4]);
  });

  it("does nothing while the horizon is within keepLastIds, and defaults to 7 days' retention", async () => {
    const r = rig();
    await r.succeed([1, 2], T0 - 6 * DAY);
    r.clock.set(T0);
    expect(await new ProcStateArchiver(r.deps, { keepLastIds: 2 }).step()).toEqual({ archived: [], more: false });
    expect(await new ProcStateArchiver(r.deps, { keepLastIds: 0 }).step()).toEqual({ archived: [], more: false });
    r.clock.set(T0 + DAY + 1);
    expect(await new ProcStateArchiver(r.deps, { keepLastIds: 0 }).step()).toEqual({ archived: [1, 2], more: false });
  });

  it("a stale fence archives nothing", async () => {
    const r = rig(1);
    r.pipeline.tables.epoch = 2;
    await r.succeed([1], T0 - 10 * DAY);
    r.clock.set(T0);
    await expect(new ProcStateArchiver(r.deps, { keepLastIds: 0 }).step()).rejects.toSatisfy((e: unknown) => isMsgxError(e) && e.kind === "FENCED");
    expect(r.pipeline.archive.size).toBe(0);
  });

  it("end to end: a re-sent identity after archiving still ends SKIPPED duplicate-of its archived original, its content hash and bind time kept", async () => {
    // Archived after 8 days, inside a 30-day dedupe window.
    const w = new MaintenanceWorld({ start: Date.UTC(2026, 2, 5, 2, 0), archive: { keepLastIds: 0 }, identity: { includeDayBoundary: false, window: 30 * DAY } });
    const raw = sis.ldm(7, w.clock.now());
    const first = w.send(raw);
    await w.settle();
    w.clock.advance(8 * DAY);
    expect((await w.archiver.step()).archived).toEqual([first]);
    const again = w.send(raw);
    // The same identity stamped later: its body differs from the archived original's.
    const later = w.send(sis.ldm(7, w.clock.now()));
    await w.settle();
    expect(await w.pipeline.get(again)).toMatchObject({ status: "SKIPPED", reason: `duplicate-of:${first}` });
    expect(await w.pipeline.get(later)).toMatchObject({ status: "SKIPPED", reason: `duplicate-of:${first} content-differs` });
    // The archived id itself is never enqueued again, even if the mailbox offers it.
    w.mailbox.rows.get(first)!.processedAt = null;
    expect(await w.pipeline.enqueue([{ msgId: first, receivedAt: 0 }], { horizon: again })).toEqual([]);
    expect(await w.pipeline.get(first)).toBeUndefined();
    // Beyond the window, measured from the archived original's binding, a differing body is a new message.
    w.clock.advance(23 * DAY);
    const wrapped = w.send(sis.ldm(7, w.clock.now()));
    await w.settle();
    expect(await w.pipeline.get(wrapped)).toMatchObject({ status: "SKIPPED", reason: "ignored:LDM", identityKey: "AODB|LDM|NONE|7" });
    expect(w.pipeline.tables.identities.get("AODB|LDM|NONE|7")).toBe(wrapped);
  });
});

describe("SnapLogCleaner", () => {
  it("deletes rows older than the retention in bounded batches", async () => {
    const r = rig();
    r.clock.set(T0);
    for (const age of [100, 95, 91, 90, 10]) r.store.logSnapshot(1, T0 - age * DAY);
    const cleaner = new SnapLogCleaner({ store: r.store, clock: r.clock, logger: silentLogger }, { retentionDays: 90, batchSize: 2 });
    expect(cleaner.cutoff(T0)).toBe(T0 - 90 * DAY);
    expect(await cleaner.step()).toEqual({ deleted: 2, more: true });
    expect(await cleaner.step()).toEqual({ deleted: 1, more: false });
    expect(r.store.pipeline.tables.snapLog.map((s) => s.loggedAt)).toEqual([T0 - 90 * DAY, T0 - 10 * DAY]);
  });
});
