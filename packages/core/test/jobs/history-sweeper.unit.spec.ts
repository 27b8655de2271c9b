import { emptyRunDecision, flightEvents, flightToPayload, isMsgxError, silentLogger, Target, type FlightState } from "@msgx/core";
import { ManualClock, sampleFlight } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { HistorySweeper } from "../../src/jobs/history-sweeper.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { InMemoryMaintenanceStore } from "../../src/jobs/in-memory-maintenance-store.js";
import type { MaintenanceStore } from "../../src/jobs/maintenance-store.js";
import { MaintenanceWorld, sis, sodtMarch } from "./maintenance-world.js";

/** 03:30 airport time on 10 March 2026: with 7 days' retention, days before 3 March retire. */
const SWEEP = Date.UTC(2026, 2, 9, 19, 30);
const flight = (flid: string, day: string, o: { deleted?: boolean; version?: number } = {}): FlightState => ({
  ...sampleFlight(flid, o.version ?? 3),
  operationDay: day,
  deleted: o.deleted ?? false,
});

function rig(options: { batchSize?: number; wrap?: (s: MaintenanceStore) => MaintenanceStore; fence?: number } = {}) {
  const clock = new ManualClock(SWEEP);
  const pipeline = new InMemoryPipelineStore(clock);
  const store = new InMemoryMaintenanceStore(pipeline, clock);
  const sweeper = new HistorySweeper(
    { store: options.wrap ? options.wrap(store) : store, clock, logger: silentLogger, ...(options.fence === undefined ? {} : { fence: options.fence }) },
    { retentionDays: 7, airportUtcOffsetMinutes: 480, batchSize: options.batchSize ?? 200 },
  );
  const seed = (flights: FlightState[]) => pipeline.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights }));
  return { clock, pipeline, store, sweeper, seed, t: pipeline.tables };
}

describe("HistorySweeper", () => {
  it("retires flights before the cutoff, tombstoning the live ones (msg + schd, version + 1), in bounded batches", async () => {
    const r = rig({ batchSize: 1 });
    const live = flight("7", "20260301", { version: 3 });
    const gone = flight("8", "20260302", { deleted: true, version: 5 });
    const stays = flight("9", "20260303");
    await r.seed([stays, gone, live]);
    expect(r.sweeper.cutoffDay(SWEEP)).toBe("20260303");

    expect(await r.sweeper.step()).toEqual({ cutoffDay: "20260303", retired: 1, tombstones: 1, more: true });
    expect(await r.sweeper.step()).toEqual({ cutoffDay: "20260303", retired: 1, tombstones: 0, more: true });
    expect(await r.sweeper.step()).toEqual({ cutoffDay: "20260303", retired: 0, tombstones: 0, more: false });

    expect([...r.t.flights.keys()]).toEqual(["9"]);
    const tombstone = { ...live, deleted: true, stateVersion: 4 };
    expect(r.t.events.map(({ target, partitionKey, eventType, stateVersion, payload, sourceMsgId }) => ({ target, partitionKey, eventType, stateVersion, payload, sourceMsgId }))).toEqual(
      flightEvents(tombstone, live.lastMsgId, { msgTopicTarget: Target.MSG, schdTarget: Target.SCHD }),
    );
    expect(await r.store.retiredFlights("7")).toEqual([{ flid: "7", operationDay: "20260301", finalState: flightToPayload(live), tombstoneVersion: 4, retiredAt: SWEEP }]);
    expect(await r.store.retiredFlights("8")).toEqual([{ flid: "8", operationDay: "20260302", finalState: flightToPayload(gone), tombstoneVersion: null, retiredAt: SWEEP }]);
  });

  it("a second sweep retires nothing again and writes no second tombstone", async () => {
    const r = rig();
    await r.seed([flight("7", "20260301"), flight("8", "20260302")]);
    expect((await r.sweeper.step()).retired).toBe(2);
    r.clock.advance(86_400_000);
    expect(await r.sweeper.step()).toMatchObject({ retired: 0, tombstones: 0, more: false });
    expect(r.t.events).toHaveLength(4);
    expect(r.store.tables.flightHistory).toHaveLength(2);
  });

  it("never splits history from tombstone: a failure after the history write leaves everything as it was", async () => {
    const r = rig({
      wrap: (s) => ({
        ...bind(s),
        transaction: (fn, o) =>
          s.transaction(
            (tx) =>
              fn({
                retirableFlights: (c, l) => tx.retirableFlights(c, l),
                retireFlights: async (f, e) => {
                  await tx.retireFlights(f, e);
                  throw new Error("connection lost after the history write");
                },
              }),
            o,
          ),
      }),
    });
    await r.seed([flight("7", "20260301")]);
    await expect(r.sweeper.step()).rejects.toThrow("connection lost");
    expect([...r.t.flights.keys()]).toEqual(["7"]);
    expect(r.t.events).toEqual([]);
    expect(r.store.tables.flightHistory).toEqual([]);
  });

  it("a stale fence writes nothing", async () => {
    const r = rig({ fence: 1 });
    r.t.epoch = 2;
    await r.seed([flight("7", "20260301")]);
    await expect(r.sweeper.step()).rejects.toSatisfy((e: unknown) => isMsgxError(e) && e.kind === "FENCED");
    expect([...r.t.flights.keys()]).toEqual(["7"]);
    expect(r.t.events).toEqual([]);
  });

  it("waits for a pipeline run in progress and retires what it committed (no resurrection, no lost update)", async () => {
    const r = rig();
    const v3 = flight("7", "20260301", { version: 3 });
    await r.seed([v3]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const run = r.pipeline.transaction(async (tx) => {
      const loaded = (await tx.loadFlights(["7"])).get("7")!;
      await held;
      await tx.applyRun({ ...emptyRunDecision, flights: [{ ...loaded, stateVersion: 4, scalars: { ...loaded.scalars, ESTT: "x" } }] });
    });
    const sweep = r.sweeper.step();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(r.store.tables.flightHistory).toEqual([]);
    release();
    await run;
    expect(await sweep).toMatchObject({ retired: 1, tombstones: 1 });
    expect(r.t.flights.size).toBe(0);
    expect(r.store.tables.flightHistory[0]?.finalState.stateVersion).toBe(4);
    expect(r.t.events.map((e) => e.stateVersion)).toEqual([5, 5]);
  });

  it("end to end: flights the pump created retire; FDEL'd ones without a second tombstone; younger ones stay", async () => {
    // 10:00 airport time on 5 March; flights on 1, 2 and 6 March.
    const w = new MaintenanceWorld({ start: Date.UTC(2026, 2, 5, 2, 0), history: { retentionDays: 1 } });
    w.send(sis.adft(1, "101", sodtMarch(1), w.clock.now()));
    w.send(sis.adft(2, "102", sodtMarch(2), w.clock.now()));
    w.send(sis.adft(3, "106", sodtMarch(6), w.clock.now()));
    w.clock.advance(1000);
    w.send(sis.fdel(4, "102", w.clock.now()));
    await w.settle();
    const before = w.pipeline.tables.events.length;
    expect(w.pipeline.tables.events.filter((e) => e.eventType === "TOMBSTONE").map((e) => e.partitionKey)).toEqual(["102", "102"]);
    await MaintenanceWorld.drain(() => w.history.step());
    expect([...w.pipeline.tables.flights.keys()]).toEqual(["106"]);
    const added = w.pipeline.tables.events.slice(before);
    expect(added.map((e) => [e.target, e.partitionKey, e.eventType])).toEqual([
      [Target.MSG, "101", "TOMBSTONE"],
      [Target.SCHD, "101", "TOMBSTONE"],
    ]);
    expect((await w.store.retiredFlights("102"))[0]?.tombstoneVersion).toBeNull();
  });
});

/** The store's methods bound to it, so a wrapper can override one member. */
function bind(s: MaintenanceStore): MaintenanceStore {
  return {
    transaction: (fn, o) => s.transaction(fn, o),
    retiredFlights: (f) => s.retiredFlights(f),
    snapshotLog: (l) => s.snapshotLog(l),
    purgeSnapLog: (b, l) => s.purgeSnapLog(b, l),
    archiveTerminal: (q, o) => s.archiveTerminal(q, o),
    archivedRecords: (ids) => s.archivedRecords(ids),
    reconcileRange: (a, b) => s.reconcileRange(a, b),
    registerMissingBackfill: (ids, now, o) => s.registerMissingBackfill(ids, now, o),
  };
}
