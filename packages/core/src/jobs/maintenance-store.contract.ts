import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "../errors/msgx-error.js";
import { flightEvents } from "../flight/flight-events.js";
import { flightToPayload } from "../flight/flight-payload.js";
import { retiredFlightState } from "../flight/history-retirement.js";
import type { FlightState } from "../model/flight-state.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import { Target, type OutboxEvent } from "../outbox/outbox-event.js";
import type { OutboxStore } from "../delivery/outbox-store.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import { evolveProc, type ProcEvent } from "../processing/proc-machine.js";
import { DEFAULT_RETRY_POLICY } from "../runtime/retry-policy.js";
import { emptyRunDecision } from "../processing/run-decision.js";
import type { SnapshotLogEntry } from "../processing/snapshot-log-entry.js";
import { sampleFlight } from "../processing/pipeline-store.contract.js";
import type { MaintenanceStore, RetiredFlight } from "./maintenance-store.js";

/** What the contract needs besides the port: the paired pipeline store on the same state. */
export interface MaintenanceStoreHarness {
  readonly store: MaintenanceStore;
  readonly pipeline: PipelineStore;
  readonly outbox: OutboxStore;
  /** Moves the leadership epoch on and returns the new one. */
  bumpEpoch(): Promise<number>;
  /** Seeds `SCHD_SNAP_LOG` rows logged at the given instants. */
  logSnapshots(loggedAt: readonly number[]): Promise<void>;
  snapLogCount(): Promise<number>;
  close(): Promise<void>;
}

const DAY = 86_400_000;
/** 10:00 airport time (UTC+8) on 20 March 2026. */
const T0 = Date.UTC(2026, 2, 20, 2, 0, 0);
const meta = (seqn: number) => ({ sndr: "AODB", seqn, dttm: "20260305020000", type: "FLOP", styp: "ESTT" });

const flight = (flid: string, operationDay: string, o: { deleted?: boolean; version?: number } = {}): FlightState => ({
  ...sampleFlight(flid, o.version ?? 3),
  operationDay,
  deleted: o.deleted ?? false,
});

/** What the history sweep hands the store for `f` (tombstoned unless already deleted). */
function retirement(f: FlightState, retiredAt = T0): { retired: RetiredFlight; events: ReturnType<typeof flightEvents> } {
  const tombstone = f.deleted ? undefined : { ...f, deleted: true, stateVersion: f.stateVersion + 1 };
  return {
    retired: { flid: f.flid, operationDay: f.operationDay!, finalState: flightToPayload(f), tombstoneVersion: tombstone?.stateVersion ?? null, retiredAt },
    events: tombstone === undefined ? [] : flightEvents(tombstone, f.lastMsgId, { msgTopicTarget: Target.MSG, schdTarget: Target.SCHD }),
  };
}

/** The behaviour every `MaintenanceStore` must show. Run it against the fake and each real adapter. */
export function describeMaintenanceStoreContract(name: string, factory: () => Promise<MaintenanceStoreHarness>): void {
  describe(`MaintenanceStore contract: ${name}`, () => {
    let h: MaintenanceStoreHarness;
    let s: MaintenanceStore;
    let p: PipelineStore;
    beforeEach(async () => {
      h = await factory();
      s = h.store;
      p = h.pipeline;
    });
    afterEach(async () => {
      await h.close();
    });

    const storeFlights = (flights: FlightState[]) => p.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights }));
    const loadFlights = (flids: string[]) => p.transaction((tx) => tx.loadFlights(flids));
    /** The FLIDs among `flids` stored live (a retired one loads as a content-less placeholder). */
    const liveFlids = async (flids: string[]) =>
      [...(await loadFlights(flids)).values()].filter((f) => f.operationDay !== null).map((f) => f.flid).sort();
    const allEvents = async (): Promise<OutboxEvent[]> =>
      [...(await h.outbox.pending(Target.MSG, T0 + 365 * DAY, 1000)), ...(await h.outbox.pending(Target.SCHD, T0 + 365 * DAY, 1000))].sort(
        (a, b) => a.eventId - b.eventId,
      );

    /** Enqueues `msgId` and ends it with `event` at `at` (optionally binding an identity and registering a todo). */
    async function finish(msgId: number, event: ProcEvent | null, at: number, extra: { identity?: string; todo?: boolean } = {}): Promise<ProcRecord> {
      await p.enqueue([{ msgId, receivedAt: at - 1000 }], { horizon: msgId });
      const base = (await p.get(msgId))!;
      if (event === null) return base;
      const r = evolveProc(base, event, { now: at, identityKey: extra.identity ?? `AODB|FLOP|ESTT|${msgId}`, meta: meta(msgId) }, DEFAULT_RETRY_POLICY);
      await p.transaction((tx) =>
        tx.applyRun({
          ...emptyRunDecision,
          records: [r],
          bindings: extra.identity === undefined ? [] : [{ identityKey: extra.identity, msgId }],
          backfill: extra.todo ? [{ msgId, processedAt: at, meta: meta(msgId) }] : [],
        }),
      );
      return r;
    }

    describe("history", () => {
      it("lists flights before the cutoff day, oldest day first then FLID as a number, whole, bounded", async () => {
        const f10 = flight("10", "20260310");
        const f100 = flight("100", "20260310", { deleted: true });
        const f9 = flight("9", "20260311");
        await storeFlights([f9, flight("11", "20260313"), f100, f10, flight("12", "20260320")]);
        const all = await s.transaction((tx) => tx.retirableFlights("20260313", 10));
        expect(all).toEqual([f10, f100, f9]);
        expect((await s.transaction((tx) => tx.retirableFlights("20260313", 2))).map((f) => f.flid)).toEqual(["10", "100"]);
        expect(await s.transaction((tx) => tx.retirableFlights("20260310", 10))).toEqual([]);
      });

      it("moves flights to history and appends their tombstones in one transaction", async () => {
        const live = flight("10", "20260310", { version: 4 });
        const gone = flight("100", "20260310", { deleted: true, version: 7 });
        await storeFlights([live, gone, flight("11", "20260313")]);
        const a = retirement(live);
        const b = retirement(gone);
        await s.transaction((tx) => tx.retireFlights([a.retired, b.retired], [...a.events, ...b.events]));

        expect(await liveFlids(["10", "100", "11"])).toEqual(["11"]);
        // The pipeline sees a retired FLID as deleted at its tombstone's version (or its FDEL's).
        const loaded = await loadFlights(["10", "100", "11", "12"]);
        expect(loaded.get("10")).toEqual(retiredFlightState("10", 5, live.lastMsgId));
        expect(loaded.get("100")).toEqual(retiredFlightState("100", 7, gone.lastMsgId));
        expect(loaded.get("11")).toMatchObject({ flid: "11", deleted: false });
        expect(loaded.has("12")).toBe(false);
        expect(await s.retiredFlights("10")).toEqual([a.retired]);
        expect(await s.retiredFlights("100")).toEqual([{ ...b.retired, tombstoneVersion: null }]);
        expect(await s.retiredFlights("11")).toEqual([]);
        const events = await allEvents();
        expect(events.map((e) => [e.target, e.partitionKey, e.eventType, e.stateVersion, e.sourceMsgId])).toEqual([
          [Target.MSG, "10", "TOMBSTONE", 5, live.lastMsgId],
          [Target.SCHD, "10", "TOMBSTONE", 5, live.lastMsgId],
        ]);
        expect(events[0]?.payload).toEqual(flightToPayload({ ...live, deleted: true, stateVersion: 5 }));
        expect(events[1]?.payload).toBeNull();
        expect(events[0]!.eventId).toBeLessThan(events[1]!.eventId);
      });

      it("moves the pipeline's state generation on with a retirement (the leader may hold those flights), not with a refused one", async () => {
        const live = flight("10", "20260310", { version: 4 });
        await storeFlights([live]);
        const generation = async () => (await h.pipeline.loadRunState([], [])).generation;
        const before = await generation();
        const stale = retirement({ ...live, stateVersion: 3 });
        await expect(s.transaction((tx) => tx.retireFlights([stale.retired], stale.events))).rejects.toSatisfy(isMsgxError);
        expect(await generation()).toBe(before);
        const a = retirement(live);
        await s.transaction((tx) => tx.retireFlights([a.retired], a.events));
        expect(await generation()).not.toBe(before);
      });

      it("a flight retired and stated again lives again and can retire again", async () => {
        const first = flight("10", "20260310", { version: 2 });
        await storeFlights([first]);
        const one = retirement(first, T0);
        await s.transaction((tx) => tx.retireFlights([one.retired], one.events));
        const again = flight("10", "20260312", { version: 1 });
        await storeFlights([again]);
        const two = retirement(again, T0 + DAY);
        await s.transaction((tx) => tx.retireFlights([two.retired], two.events));
        expect(await s.retiredFlights("10")).toEqual([one.retired, two.retired]);
        // The highest version of any life, not the last life's (here stored below the first).
        expect((await loadFlights(["10"])).get("10")).toEqual(retiredFlightState("10", 3, first.lastMsgId));
        const third = flight("10", "20260314", { version: 5 });
        await storeFlights([third]);
        expect((await loadFlights(["10"])).get("10")).toEqual(third);
        const three = retirement(third, T0 + 2 * DAY);
        await s.transaction((tx) => tx.retireFlights([three.retired], three.events));
        expect((await loadFlights(["10"])).get("10")).toEqual(retiredFlightState("10", 6, third.lastMsgId));
      });

      it("writes nothing when the transaction body throws", async () => {
        const live = flight("10", "20260310");
        await storeFlights([live]);
        const a = retirement(live);
        await expect(
          s.transaction(async (tx) => {
            await tx.retireFlights([a.retired], a.events);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        expect(await liveFlids(["10"])).toEqual(["10"]);
        expect(await s.retiredFlights("10")).toEqual([]);
        expect(await allEvents()).toEqual([]);
      });

      it("refuses a flight that is not stored at the version it was loaded with, writing nothing", async () => {
        const f1 = flight("1", "20260310", { version: 3 });
        const f2 = flight("2", "20260310", { version: 3 });
        await storeFlights([f1, f2]);
        const ok = retirement(f1);
        const stale = retirement({ ...f2, stateVersion: 2 });
        const missing = retirement(flight("3", "20260310"));
        for (const bad of [stale, missing]) {
          await expect(
            s.transaction((tx) => tx.retireFlights([ok.retired, bad.retired], [...ok.events, ...bad.events])),
          ).rejects.toSatisfy(isMsgxError);
        }
        expect(await liveFlids(["1", "2"])).toEqual(["1", "2"]);
        expect(await s.retiredFlights("1")).toEqual([]);
        expect(await allEvents()).toEqual([]);
      });

      it("refuses a stale fence before writing anything; the current one passes", async () => {
        const live = flight("10", "20260310");
        await storeFlights([live]);
        const old = await h.bumpEpoch();
        const current = await h.bumpEpoch();
        const a = retirement(live);
        await expect(s.transaction((tx) => tx.retireFlights([a.retired], a.events), { fence: old })).rejects.toSatisfy(
          (e: unknown) => isMsgxError(e) && e.kind === "FENCED",
        );
        expect(await liveFlids(["10"])).toEqual(["10"]);
        expect(await allEvents()).toEqual([]);
        await s.transaction((tx) => tx.retireFlights([a.retired], a.events), { fence: current });
        expect(await liveFlids(["10"])).toEqual([]);
      });
    });

    describe("snap log", () => {
      it("purges rows logged before the cutoff, oldest first, at most limit per call", async () => {
        await h.logSnapshots([T0 - 91 * DAY, T0 - 100 * DAY, T0 - 89 * DAY, T0 - 95 * DAY, T0]);
        const cutoff = T0 - 90 * DAY;
        expect(await s.purgeSnapLog(cutoff, 2)).toBe(2);
        expect(await h.snapLogCount()).toBe(3);
        expect(await s.purgeSnapLog(cutoff, 2)).toBe(1);
        expect(await s.purgeSnapLog(cutoff, 2)).toBe(0);
        expect(await h.snapLogCount()).toBe(2);
      });

      it("keeps what the pipeline's runs log of their snapshots, newest first, and refuses a bad limit", async () => {
        const dnld: SnapshotLogEntry = { msgId: 7, styp: "DNLD", operationDay: "20260305", declaredRecs: 3, flights: 3, outcome: ProcStatus.SUCCEEDED, reason: null };
        const dup: SnapshotLogEntry = { msgId: 8, styp: "DNLD", operationDay: null, declaredRecs: null, flights: 1, outcome: ProcStatus.SKIPPED, reason: "duplicate-of:7" };
        const resp: SnapshotLogEntry = { msgId: 9, styp: "RESP", operationDay: null, declaredRecs: 2, flights: 1, outcome: ProcStatus.DEAD, reason: "RECS 2 but 1 FLTR" };
        expect(await s.snapshotLog(10)).toEqual([]);
        await p.transaction((tx) => tx.applyRun({ ...emptyRunDecision, snapshots: [dnld, dup] }));
        await p.transaction((tx) => tx.applyRun({ ...emptyRunDecision, snapshots: [resp] }));
        // A run that rolls back logs nothing.
        await expect(
          p.transaction(async (tx) => {
            await tx.applyRun({ ...emptyRunDecision, snapshots: [{ ...resp, msgId: 10 }] });
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        const rows = await s.snapshotLog(10);
        expect(rows.map(({ snapId: _id, loggedAt: _at, ...entry }) => entry)).toEqual([resp, dup, dnld]);
        expect(rows[0]!.snapId).toBeGreaterThan(rows[1]!.snapId);
        expect(rows[1]!.snapId).toBeGreaterThan(rows[2]!.snapId);
        for (const r of rows) expect(Number.isFinite(r.loggedAt)).toBe(true);
        expect((await s.snapshotLog(1)).map((r) => r.msgId)).toEqual([9]);
        for (const bad of [0, -1, 1.5]) await expect(s.snapshotLog(bad)).rejects.toThrow(RangeError);
        expect(await h.snapLogCount()).toBe(3);
      });
    });

    describe("PROC_STATE archive", () => {
      const old = T0 - 10 * DAY;
      const query = (o: Partial<{ limit: number; throughMsgId: number }> = {}) => ({
        updatedBefore: T0 - 7 * DAY,
        throughMsgId: o.throughMsgId ?? 100,
        limit: o.limit ?? 100,
        now: T0,
      });

      it("moves old terminal records without a todo, unchanged; never PENDING, FAILED, young, todo or newer ids", async () => {
        const r1 = await finish(1, { type: "succeeded" }, old);
        const r2 = await finish(2, { type: "skipped", reason: "duplicate-of:1" }, old + 1);
        const r3 = await finish(3, { type: "rejected", errorClass: "MALFORMED", reason: "not XML" }, old + 2);
        await finish(4, { type: "failed", errorClass: "INFRA", reason: "x" }, old);
        await finish(5, null, old);
        await finish(6, { type: "succeeded" }, old, { todo: true });
        await finish(7, { type: "succeeded" }, T0 - DAY);
        await finish(8, { type: "succeeded" }, old);
        expect(await s.archiveTerminal(query({ throughMsgId: 7 }))).toEqual([1, 2, 3]);
        expect(await s.archivedRecords([4, 3, 2, 1, 1])).toEqual([r1, r2, r3].map((record) => ({ record, archivedAt: T0 })));
        expect(await p.get(1)).toBeUndefined();
        expect((await p.list({})).map((r) => r.msgId)).toEqual([4, 5, 6, 7, 8]);
        expect((await p.head())?.msgId).toBe(4);
        expect(await s.archiveTerminal(query({ throughMsgId: 7 }))).toEqual([]);
      });

      it("takes the oldest first and at most limit per call", async () => {
        await finish(1, { type: "succeeded" }, old + 3);
        await finish(2, { type: "succeeded" }, old + 1);
        await finish(3, { type: "succeeded" }, old + 2);
        expect(await s.archiveTerminal(query({ limit: 2 }))).toEqual([2, 3]);
        expect(await s.archiveTerminal(query({ limit: 2 }))).toEqual([1]);
      });

      it("keeps dedupe: the identity stays bound, and enqueue ignores an archived id", async () => {
        await finish(1, { type: "succeeded" }, old, { identity: "AODB|FLOP|ESTT|77" });
        expect(await s.archiveTerminal(query())).toEqual([1]);
        await p.transaction(async (tx) => expect(await tx.identityOwners(["AODB|FLOP|ESTT|77"])).toEqual(new Map([["AODB|FLOP|ESTT|77", { msgId: 1, contentHash: null, boundAt: expect.any(Number) }]])));
        expect(await p.enqueue([{ msgId: 1, receivedAt: old }, { msgId: 9, receivedAt: T0 }], { horizon: 9 })).toEqual([9]);
        expect(await p.get(1)).toBeUndefined();
        expect((await p.head())?.msgId).toBe(9);
        expect((await p.intakeState())?.horizon).toBe(9);
        const nine = evolveProc((await p.get(9))!, { type: "succeeded" }, { now: T0 }, DEFAULT_RETRY_POLICY);
        await expect(
          p.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [nine], bindings: [{ identityKey: "AODB|FLOP|ESTT|77", msgId: 9 }] })),
        ).rejects.toSatisfy(isMsgxError);
      });

      it("refuses a stale fence and moves nothing", async () => {
        await finish(1, { type: "succeeded" }, old);
        const stale = await h.bumpEpoch();
        await h.bumpEpoch();
        await expect(s.archiveTerminal(query(), { fence: stale })).rejects.toSatisfy((e: unknown) => isMsgxError(e) && e.kind === "FENCED");
        expect((await p.get(1))?.status).toBe(ProcStatus.SUCCEEDED);
        expect(await s.archivedRecords([1])).toEqual([]);
      });
    });

    describe("reconciliation", () => {
      it("lists live and archived records of an id range with their todo", async () => {
        await finish(1, { type: "succeeded" }, T0 - 10 * DAY);
        await finish(2, { type: "succeeded" }, T0, { todo: true });
        await finish(3, null, T0);
        await finish(5, { type: "rejected", errorClass: "PROTOCOL", reason: "RECS" }, T0);
        await finish(6, { type: "succeeded" }, T0);
        await s.archiveTerminal({ updatedBefore: T0 - DAY, throughMsgId: 100, limit: 10, now: T0 });
        expect(await s.reconcileRange(0, 5)).toEqual([
          { msgId: 1, status: "SUCCEEDED", archived: true, backfillPending: false },
          { msgId: 2, status: "SUCCEEDED", archived: false, backfillPending: true },
          { msgId: 3, status: "PENDING", archived: false, backfillPending: false },
          { msgId: 5, status: "DEAD", archived: false, backfillPending: false },
        ]);
        expect(await s.reconcileRange(5, 5)).toEqual([]);
      });

      it("registers a due todo for terminal records (live or archived) without one, idempotently", async () => {
        const r1 = await finish(1, { type: "succeeded" }, T0 - 10 * DAY);
        await s.archiveTerminal({ updatedBefore: T0 - DAY, throughMsgId: 100, limit: 10, now: T0 });
        const r2 = await finish(2, { type: "skipped", reason: "ignored:LDM" }, T0);
        await finish(3, { type: "succeeded" }, T0, { todo: true });
        await finish(4, null, T0);
        await finish(5, { type: "failed", errorClass: "INFRA", reason: "x" }, T0);
        expect(await s.registerMissingBackfill([5, 4, 3, 2, 1, 99], T0 + 5)).toEqual([1, 2]);
        expect(await s.registerMissingBackfill([1, 2], T0 + 6)).toEqual([]);
        // 3 keeps the todo it had (due whenever its store scheduled it).
        const due = (await p.dueBackfill(T0 + 5, 10)).filter((t) => t.msgId !== 3);
        expect(due.map((t) => [t.msgId, t.processedAt, t.meta, t.attempts, t.nextAttemptAt, t.lastError])).toEqual([
          [1, r1.updatedAt, r1.meta, 0, T0 + 5, null],
          [2, r2.updatedAt, r2.meta, 0, T0 + 5, null],
        ]);
      });

      it("refuses a stale fence when registering", async () => {
        await finish(2, { type: "succeeded" }, T0);
        const stale = await h.bumpEpoch();
        await h.bumpEpoch();
        await expect(s.registerMissingBackfill([2], T0, { fence: stale })).rejects.toSatisfy((e: unknown) => isMsgxError(e) && e.kind === "FENCED");
        expect(await p.dueBackfill(T0 + DAY, 10)).toEqual([]);
      });
    });
  });
}
