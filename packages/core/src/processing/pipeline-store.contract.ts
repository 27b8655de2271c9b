import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "../errors/msgx-error.js";
import type { FlightState } from "../model/flight-state.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import type { PipelineStore } from "./pipeline-store.js";
import { evolveProc } from "./proc-machine.js";
import { DEFAULT_RETRY_POLICY } from "../runtime/retry-policy.js";
import { emptyRunDecision, type RunDecision } from "./run-decision.js";
import type { RefFields } from "../model/reference-schema.js";
import type { RefChange } from "../requests/reference-entry.js";
import { describeCommitRunCases } from "./commit-run.contract.js";

/** What the contract needs besides the port. */
export interface PipelineStoreHarness {
  readonly store: PipelineStore;
  /** Moves the leadership epoch on and returns the new one (a new leader took over). */
  bumpEpoch(): Promise<number>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 2, 0, 0);
const meta = { sndr: "AODB", seqn: 7, dttm: "20260305020000", type: "FLOP", styp: "ESTT" };

/** A flight with every shape of value: set, cleared (null / []), absent, attributes, text. */
export const sampleFlight = (flid = "900101", version = 1): FlightState => ({
  flid,
  ffid: "CZ-CZ3101-D-05MAR260800-D",
  operationDay: "20260305",
  stateVersion: version,
  lastMsgId: 42,
  lastSrcDttm: "20260305020000",
  deleted: false,
  scalars: { ALCD: "CZ", FLNO: "CZ3101", SODT: "2026-03-05T08:00", CNCL: null, "FDIV@DDES": "SHA", PAXC: "180" },
  collections: {
    GTDT: [{ key: "1", values: { GATE: "A22", PGOT: "2026-03-05T07:10", GOTM: null } }],
    CKDT: [],
    DELY: [{ key: "81", values: { "@CODE": "81", "@DURA": "00:25", "#text": "ATC flow" } }],
  },
});

const succeeded = (r: ProcRecord, now: number): ProcRecord =>
  evolveProc(r, { type: "succeeded" }, { now, identityKey: `AODB|FLOP|ESTT|${r.msgId}`, meta: { ...meta, seqn: r.msgId } }, DEFAULT_RETRY_POLICY);

/** The behaviour every `PipelineStore` must show. Run it against the fake and each real adapter. */
export function describePipelineStoreContract(name: string, factory: () => Promise<PipelineStoreHarness>): void {
  describe(`PipelineStore contract: ${name}`, () => {
    let h: PipelineStoreHarness;
    let s: PipelineStore;
    beforeEach(async () => {
      h = await factory();
      s = h.store;
    });
    afterEach(async () => {
      await h.close();
    });

    const enqueue = (ids: number[], horizon = Math.max(0, ...ids)) =>
      s.enqueue(ids.map((msgId) => ({ msgId, receivedAt: T0 + msgId })), { horizon });

    it("enqueues idempotently, keeps the intake horizon, and never rewrites a record", async () => {
      expect(await s.intakeState()).toBeUndefined();
      expect(await enqueue([1, 2, 3])).toEqual([1, 2, 3]);
      const first = (await s.get(2))!;
      expect(first).toMatchObject({ msgId: 2, status: ProcStatus.PENDING, attempts: 0, identityKey: null, history: [] });
      expect(await enqueue([2, 3, 4])).toEqual([4]);
      expect(await s.get(2)).toEqual(first);
      expect((await s.intakeState())?.horizon).toBe(4);
    });

    it("finds the head as the smallest unfinished id and lists unfinished records in order", async () => {
      await enqueue([5, 3, 9, 7]);
      expect((await s.head())?.msgId).toBe(3);
      const three = (await s.get(3))!;
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [succeeded(three, T0)] }));
      expect((await s.head())?.msgId).toBe(5);
      expect((await s.unfinished(5, 2)).map((r) => r.msgId)).toEqual([5, 7]);
      expect((await s.unfinished(6, 10)).map((r) => r.msgId)).toEqual([7, 9]);
      const failed = evolveProc((await s.get(5))!, { type: "failed", errorClass: "INFRA", reason: "x" }, { now: T0 }, DEFAULT_RETRY_POLICY);
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [failed] }));
      expect(await s.head()).toEqual(failed);
    });

    it("round-trips a record with identity, META, history and nulls", async () => {
      await enqueue([11]);
      let r = (await s.get(11))!;
      r = evolveProc(r, { type: "failed", errorClass: "CODEC_ERROR", reason: "why ü" }, { now: T0 + 5, identityKey: "AODB|FLOP|ESTT|11", meta }, DEFAULT_RETRY_POLICY);
      r = evolveProc(r, { type: "failed", errorClass: "INFRA", reason: "again" }, { now: T0 + 2000 }, DEFAULT_RETRY_POLICY);
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [r] }));
      expect(await s.get(11)).toEqual(r);
      expect(await s.list({ statuses: [ProcStatus.FAILED], errorClasses: ["INFRA"] })).toEqual([r]);
      expect(await s.list({ msgIds: [11, 12] })).toEqual([r]);
    });

    it("groups records of the given statuses by class and reason: counts, smallest ids, classes then the biggest groups first", async () => {
      await enqueue([1, 2, 3, 4, 5, 6, 7]);
      const fail = async (msgId: number, errorClass: "INFRA" | "CODEC_ERROR", reason: string) => {
        const r = evolveProc((await s.get(msgId))!, { type: "failed", errorClass, reason }, { now: T0 }, DEFAULT_RETRY_POLICY);
        await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [r] }));
      };
      await fail(1, "INFRA", "db down");
      await fail(2, "INFRA", "Z lock");
      await fail(3, "INFRA", "Z lock");
      await fail(4, "CODEC_ERROR", "bad <FLID>");
      await fail(5, "INFRA", "Z lock");
      await fail(6, "INFRA", "db down");
      await fail(7, "INFRA", "a timeout");
      expect(await s.groups([ProcStatus.FAILED], 2)).toEqual([
        { errorClass: "CODEC_ERROR", reason: "bad <FLID>", count: 1, msgIds: [4] },
        { errorClass: "INFRA", reason: "Z lock", count: 3, msgIds: [2, 3] },
        { errorClass: "INFRA", reason: "db down", count: 2, msgIds: [1, 6] },
        { errorClass: "INFRA", reason: "a timeout", count: 1, msgIds: [7] },
      ]);
      expect(await s.groups([ProcStatus.DEAD], 10)).toEqual([]);
    });

    it("binds identities uniquely: a taken key fails the whole transaction", async () => {
      await enqueue([1, 2]);
      const one = succeeded((await s.get(1))!, T0);
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [one], bindings: [{ identityKey: "K", msgId: 1 }] }));
      await s.transaction(async (tx) => expect(await tx.identityOwners(["K", "L"])).toEqual(new Map([["K", { msgId: 1, contentHash: null, boundAt: expect.any(Number) }]])));
      const two = succeeded((await s.get(2))!, T0);
      await expect(
        s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [two], bindings: [{ identityKey: "K", msgId: 2 }] })),
      ).rejects.toSatisfy(isMsgxError);
      expect((await s.get(2))?.status).toBe(ProcStatus.PENDING);
    });

    it("keeps the content hash stored with a binding; a binding without one reads back null", async () => {
      await enqueue([1, 2]);
      const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
      const one = succeeded((await s.get(1))!, T0);
      const two = succeeded((await s.get(2))!, T0);
      await s.transaction((tx) =>
        tx.applyRun({ ...emptyRunDecision, records: [one, two], bindings: [{ identityKey: "H", msgId: 1, contentHash: hash }, { identityKey: "N", msgId: 2, contentHash: null }] }),
      );
      await s.transaction(async (tx) =>
        expect(await tx.identityOwners(["H", "N", "X"])).toEqual(
          new Map([
            ["H", { msgId: 1, contentHash: hash, boundAt: expect.any(Number) }],
            ["N", { msgId: 2, contentHash: null, boundAt: expect.any(Number) }],
          ]),
        ),
      );
    });

    it("moves a binding (replaces) only from the owner it names, with the hash and a new boundAt, atomically with the transaction", async () => {
      await enqueue([1, 2, 3]);
      const [one, two, three] = await Promise.all([1, 2, 3].map(async (id) => succeeded((await s.get(id))!, T0)));
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [one!], bindings: [{ identityKey: "K", msgId: 1, contentHash: "h1" }] }));
      const owner = async () => s.transaction(async (tx) => (await tx.identityOwners(["K"])).get("K"));
      const first = await owner();
      expect(first).toEqual({ msgId: 1, contentHash: "h1", boundAt: expect.any(Number) });

      // Naming an owner that does not hold the key fails the whole transaction.
      await expect(
        s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [two!], bindings: [{ identityKey: "K", msgId: 2, contentHash: "h2", replaces: 9 }] })),
      ).rejects.toSatisfy(isMsgxError);
      expect((await s.get(2))?.status).toBe(ProcStatus.PENDING);
      // A transaction that fails after the move keeps nothing of it.
      await expect(
        s.transaction(async (tx) => {
          await tx.applyRun({ ...emptyRunDecision, records: [two!], bindings: [{ identityKey: "K", msgId: 2, contentHash: "h2", replaces: 1 }] });
          throw new Error("after the move");
        }),
      ).rejects.toThrow("after the move");
      expect(await owner()).toEqual(first);

      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [two!], bindings: [{ identityKey: "K", msgId: 2, contentHash: "h2", replaces: 1 }] }));
      const moved = await owner();
      expect(moved).toEqual({ msgId: 2, contentHash: "h2", boundAt: expect.any(Number) });
      expect(moved!.boundAt!).toBeGreaterThanOrEqual(first!.boundAt!);
      // The previous owner cannot take it back by naming itself again.
      await expect(
        s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [three!], bindings: [{ identityKey: "K", msgId: 3, contentHash: "h3", replaces: 1 }] })),
      ).rejects.toSatisfy(isMsgxError);
      expect(await owner()).toEqual(moved);
    });

    it("keeps the traceparent a record was enqueued with through its runs; a record enqueued without one has none", async () => {
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      await s.enqueue([{ msgId: 1, receivedAt: T0, traceparent }, { msgId: 2, receivedAt: T0 }], { horizon: 2 });
      expect((await s.get(1))?.traceparent).toBe(traceparent);
      expect((await s.get(2))?.traceparent ?? null).toBeNull();
      const one = succeeded((await s.get(1))!, T0 + 1);
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [one] }));
      expect(await s.get(1)).toMatchObject({ status: ProcStatus.SUCCEEDED, traceparent });
      expect((await s.unfinished(0, 10)).map((r) => r.traceparent ?? null)).toEqual([null]);
    });

    it("refuses a run that writes a record never enqueued, and keeps nothing of that run", async () => {
      await enqueue([1]);
      const one = succeeded((await s.get(1))!, T0);
      const stranger: ProcRecord = { ...one, msgId: 99 };
      const decision: RunDecision = {
        ...emptyRunDecision,
        records: [one, stranger],
        bindings: [{ identityKey: "K1", msgId: 1 }],
        flights: [sampleFlight()],
        backfill: [{ msgId: 1, processedAt: T0, meta }],
      };
      await expect(s.transaction((tx) => tx.applyRun(decision))).rejects.toMatchObject({ kind: "INFRA" });
      expect((await s.get(1))?.status).toBe(ProcStatus.PENDING);
      expect(await s.get(99)).toBeUndefined();
      await s.transaction(async (tx) => {
        expect((await tx.loadFlights(["900101"])).size).toBe(0);
        expect((await tx.identityOwners(["K1"])).size).toBe(0);
      });
      expect(await s.dueBackfill(T0 + 86_400_000, 10)).toEqual([]);
    });

    it("writes nothing when the transaction body throws", async () => {
      await enqueue([1]);
      const one = succeeded((await s.get(1))!, T0);
      const decision: RunDecision = { ...emptyRunDecision, records: [one], flights: [sampleFlight()], backfill: [{ msgId: 1, processedAt: T0, meta }] };
      await expect(
        s.transaction(async (tx) => {
          await tx.applyRun(decision);
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect((await s.get(1))?.status).toBe(ProcStatus.PENDING);
      await s.transaction(async (tx) => expect((await tx.loadFlights(["900101"])).size).toBe(0));
      expect(await s.dueBackfill(T0 + 86_400_000, 10)).toEqual([]);
    });

    it("stores flights exactly: set, cleared and absent values stay apart", async () => {
      await enqueue([1]);
      const f = sampleFlight();
      const deleted: FlightState = { ...sampleFlight("900102", 3), deleted: true, scalars: {}, collections: {} };
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [f, deleted] }));
      await s.transaction(async (tx) => {
        const loaded = await tx.loadFlights(["900101", "900102", "404"]);
        expect(loaded.get("900101")).toEqual(f);
        expect(loaded.get("900102")).toEqual(deleted);
        expect(loaded.has("404")).toBe(false);
      });
      const next: FlightState = { ...f, stateVersion: 2, scalars: { ...f.scalars, CNCL: "2026-03-05T09:00" }, collections: { GTDT: [] } };
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [next] }));
      await s.transaction(async (tx) => expect((await tx.loadFlights(["900101"])).get("900101")).toEqual(next));
    });

    it("registers backfill todos with the run and hands them to the sweep when due", async () => {
      await enqueue([1, 2]);
      const recs = [succeeded((await s.get(1))!, T0), succeeded((await s.get(2))!, T0)];
      await s.transaction((tx) =>
        tx.applyRun({ ...emptyRunDecision, records: recs, backfill: recs.map((r) => ({ msgId: r.msgId, processedAt: T0, meta: r.meta })) }),
      );
      const due = await s.dueBackfill(T0 + 86_400_000, 10);
      expect(due.map((t) => t.msgId)).toEqual([1, 2]);
      expect(due[0]).toMatchObject({ processedAt: T0, attempts: 0, meta: recs[0]!.meta });
      await s.deferBackfill([{ ...due[0]!, attempts: 1, nextAttemptAt: T0 + 10 * 86_400_000, lastError: "down" }]);
      await s.completeBackfill([2]);
      expect((await s.dueBackfill(T0 + 86_400_000, 10)).map((t) => t.msgId)).toEqual([]);
      expect(await s.dueBackfill(T0 + 10 * 86_400_000, 10)).toMatchObject([{ msgId: 1, attempts: 1, lastError: "down" }]);
    });

    it("refuses a fenced transaction from a stale epoch and writes nothing", async () => {
      await enqueue([1]);
      const epoch = await h.bumpEpoch();
      const one = succeeded((await s.get(1))!, T0);
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [one] }), { fence: epoch });
      await enqueue([2]);
      const two = succeeded((await s.get(2))!, T0);
      await h.bumpEpoch();
      await expect(s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [two] }), { fence: epoch })).rejects.toMatchObject({
        kind: "FENCED",
      });
      expect((await s.get(2))?.status).toBe(ProcStatus.PENDING);
    });

    it("offers no open upstream requests on an empty store (REQ_TRACK is read in the pipeline transaction)", async () => {
      await s.transaction(async (tx) => expect(await tx.openRequests()).toEqual([]));
    });

    it("loads the stored reference rows of the asked types, tombstones included, fields exactly as written", async () => {
      const fields: RefFields = {
        ONAM: "KESTREL FREIGHT",
        ONMC: "红隼货运",
        ICOP: null,
        TRML: [{ terminal: "T2", mvin: "A", flin: null }],
        OGRP: [],
        SUBC: [{ CODE: "401", NAME: null }],
        ABBR: { ABR1: "KX" },
        ATHE: true,
        FEPU: false,
      };
      const rows: RefChange[] = [
        { rtype: "AIRL", rkey: "K4", fields, deleted: false, version: 3, msgId: 5 },
        { rtype: "AIRL", rkey: "k4 ", fields: { ONAM: "gone" }, deleted: true, version: 2, msgId: 6 },
        { rtype: "ARPT", rkey: "KXA", fields: {}, deleted: false, version: 1, msgId: 5 },
      ];
      await s.transaction((tx) => tx.applyRun({ ...emptyRunDecision, references: rows }));
      const loaded = await s.transaction((tx) => tx.loadReferences(["AIRL", "CITY"]));
      expect([...loaded].sort((a, b) => (a.rkey < b.rkey ? -1 : 1)).map(({ updatedAt: _, ...r }) => r)).toStrictEqual(rows.slice(0, 2));
      expect(loaded.every((r) => Number.isFinite(r.updatedAt))).toBe(true);
      expect(await s.transaction((tx) => tx.loadReferences([]))).toEqual([]);
    });

    it("keeps operator audit rows, newest first", async () => {
      await s.transaction((tx) => tx.appendAudit({ at: T0, operator: "ops", action: "replay", msgIds: [1, 2], detail: "{}" }));
      await s.transaction((tx) => tx.appendAudit({ at: T0 + 1, operator: "ops", action: "replay", msgIds: [3], detail: "x" }));
      expect((await s.audits(10)).map((a) => a.msgIds)).toEqual([[3], [1, 2]]);
    });

    it("pages audit rows by id, newest first, each with its id and fields as appended", async () => {
      for (let i = 1; i <= 5; i++) {
        await s.transaction((tx) => tx.appendAudit({ at: T0 + i, operator: `op${i}`, action: i % 2 ? "replay" : "unsupported-skipped", msgIds: [i, i + 10], detail: JSON.stringify({ i }) }));
      }
      const all = await s.audits(10);
      expect(all.map((a) => a.operator)).toEqual(["op5", "op4", "op3", "op2", "op1"]);
      expect(all.every((a, k) => k === 0 || a.auditId < all[k - 1]!.auditId)).toBe(true);
      expect(all[0]).toEqual({ auditId: all[0]!.auditId, at: T0 + 5, operator: "op5", action: "replay", msgIds: [5, 15], detail: '{"i":5}' });
      const first = await s.audits(2);
      expect(first.map((a) => a.operator)).toEqual(["op5", "op4"]);
      const second = await s.audits(2, first.at(-1)!.auditId);
      expect(second.map((a) => a.operator)).toEqual(["op3", "op2"]);
      expect((await s.audits(10, all.at(-1)!.auditId)).length).toBe(0);
    });

    describeCommitRunCases(() => h);
  });
}
