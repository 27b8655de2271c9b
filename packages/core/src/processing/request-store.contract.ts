import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "../errors/msgx-error.js";
import { newProcRecord } from "./proc-machine.js";
import { emptyRunDecision } from "./run-decision.js";
import type { PipelineStore } from "./pipeline-store.js";
import { encodeRequest } from "../requests/request-encoder.js";
import { evolveRequest, registerRequest } from "../requests/request-machine.js";
import type { RequestParams, RequestRecord } from "../requests/request-record.js";
import type { RefChange } from "../requests/reference-entry.js";
import type { ReferenceReader } from "../requests/reference-reader.js";
import { RequestStatus } from "../requests/request-status.js";
import type { RequestStore } from "../requests/request-store.js";
import { MatchRule } from "../requests/reply-match.js";

/** One fresh, empty backend per test: the request store and the pipeline store over the same data. */
export interface RequestStoreHarness {
  readonly requests: RequestStore;
  /** The pipeline transaction reads open requests and closes answered ones in the same database. */
  readonly pipeline: PipelineStore;
  readonly references: ReferenceReader;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 1, 0, 0);
const RQFD: RequestParams = { kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" };
const ARPT: RequestParams = { kind: "RQRD", rtype: "ARPT" };

/** A REGISTERED draft as the coordinator builds it. */
export function sampleRequestDraft(params: RequestParams = RQFD, seqn = 1, now = T0) {
  const meta = { sndr: "MSGX", seqn, dttm: "20260305090000" };
  return registerRequest({ params, meta, routingId: params.kind === "RQFD" ? "VIEWRQFD" : "VIEWRQRD", rawXml: encodeRequest(params, meta), requestedBy: "ops ü", now, timeoutMs: 900_000 });
}

const sent = (r: RequestRecord, at = T0 + 1_000, outboundId = 77): RequestRecord =>
  evolveRequest(evolveRequest(r, { type: "send-attempted", at, leaseUntil: at + 120_000 }), { type: "sent", at, outboundId, recovered: false, timeoutMs: 900_000 });

/**
 * The behaviour every `RequestStore` must show, with the pipeline transaction's side of
 * `REQ_TRACK` and `REF_MASTER`. Run it against the fake and each real adapter.
 */
export function describeRequestStoreContract(name: string, factory: () => Promise<RequestStoreHarness>): void {
  describe(`RequestStore contract: ${name}`, () => {
    let h: RequestStoreHarness;
    let s: RequestStore;
    beforeEach(async () => {
      h = await factory();
      s = h.requests;
    });
    afterEach(async () => {
      await h.close();
    });

    const insert = (draft = sampleRequestDraft()) => s.transaction((tx) => tx.insert(draft));

    it("inserts with ascending ids and round-trips every field exactly", async () => {
      const a = await insert();
      const b = await insert(sampleRequestDraft(ARPT, 2));
      expect(Number(b.requestId)).toBeGreaterThan(Number(a.requestId));
      expect(a).toEqual({ requestId: a.requestId, ...sampleRequestDraft() });
      expect(await s.get(a.requestId)).toEqual(a);
      expect(await s.get(b.requestId)).toEqual(b);
      expect(await s.get("999999")).toBeUndefined();
      expect((await s.open()).map((r) => r.requestId)).toEqual([a.requestId, b.requestId]);
    });

    it("keeps our SEQN counter per SNDR, and a failed transaction writes nothing", async () => {
      expect(await s.transaction((tx) => tx.lastSeqn("MSGX"))).toBeNull();
      await s.transaction((tx) => tx.saveSeqn("MSGX", 999_999));
      await s.transaction((tx) => tx.saveSeqn("OTHR", 5));
      await expect(
        s.transaction(async (tx) => {
          await tx.saveSeqn("MSGX", 1);
          await tx.insert(sampleRequestDraft());
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await s.transaction((tx) => tx.lastSeqn("MSGX"))).toBe(999_999);
      expect(await s.transaction((tx) => tx.lastSeqn("OTHR"))).toBe(5);
      expect(await s.open()).toEqual([]);
    });

    it("allows one open request per type: a second is refused (CONFLICT) until the first is closed", async () => {
      const a = await insert();
      await insert(sampleRequestDraft(ARPT, 2));
      await expect(insert(sampleRequestDraft(RQFD, 3))).rejects.toSatisfy((e) => isMsgxError(e) && e.kind === "CONFLICT");
      expect(await s.transaction((tx) => tx.openOfType("RQFD"))).toEqual(a);
      expect(await s.transaction((tx) => tx.openOfType("RQRD/ALIN"))).toBeUndefined();
      const c = await s.transaction(async (tx) => {
        expect(await tx.update(evolveRequest(a, { type: "expired", at: T0, reason: "superseded" }), a.version)).toBe(true);
        return tx.insert(sampleRequestDraft(RQFD, 3));
      });
      expect((await s.get(a.requestId))?.status).toBe(RequestStatus.EXPIRED);
      expect((await s.open()).map((r) => r.requestType)).toEqual(["RQRD/ARPT", "RQFD"]);
      expect(c.seqn).toBe(3);
    });

    it("updates by compare-and-set: a stale version writes nothing; of two racing writers one wins", async () => {
      const a = await insert();
      const claimed = evolveRequest(a, { type: "send-attempted", at: T0, leaseUntil: T0 + 1 });
      expect(await s.update(claimed, a.version)).toBe(true);
      expect(await s.update(evolveRequest(a, { type: "expired", at: T0, reason: "timeout" }), a.version)).toBe(false);
      expect(await s.get(a.requestId)).toEqual(claimed);
      const race = await Promise.all([
        s.update(evolveRequest(claimed, { type: "expired", at: T0 + 5, reason: "timeout" }), claimed.version),
        s.update(evolveRequest(claimed, { type: "send-failed", at: T0 + 5, error: "down", retryAt: T0 + 10 }), claimed.version),
      ]);
      expect(race.filter(Boolean)).toHaveLength(1);
    });

    it("lists newest first by status, type, id and limit", async () => {
      const a = await insert();
      const b = await insert(sampleRequestDraft(ARPT, 2));
      await s.update(evolveRequest(a, { type: "expired", at: T0, reason: "timeout" }), a.version);
      const c = await insert(sampleRequestDraft(RQFD, 3));
      const ids = async (f: Parameters<RequestStore["list"]>[0]) => (await s.list(f)).map((r) => r.requestId);
      expect(await ids({ limit: 10 })).toEqual([c.requestId, b.requestId, a.requestId]);
      expect(await ids({ limit: 10, statuses: [RequestStatus.EXPIRED] })).toEqual([a.requestId]);
      expect(await ids({ limit: 10, requestType: "RQFD" })).toEqual([c.requestId, a.requestId]);
      expect(await ids({ limit: 1, beforeId: c.requestId })).toEqual([b.requestId]);
    });

    it("the pipeline transaction sees only sent, open requests, and closes one with its run", async () => {
      const registered = await insert(sampleRequestDraft(ARPT, 1));
      const r = await insert(sampleRequestDraft(RQFD, 2));
      const s1 = sent(r);
      await s.update(s1, r.version);
      expect(await h.pipeline.transaction((tx) => tx.openRequests())).toEqual([s1]);
      await h.pipeline.enqueue([{ msgId: 5, receivedAt: T0 }], { horizon: 5 });
      const match = { rule: MatchRule.FALLBACK, msgId: 5, replyDttm: "20260305091620", replyAt: T0 + 980_000, detail: "fallback: …" };
      const done = evolveRequest(s1, { type: "answered", at: T0 + 990_000, match });
      const record = { ...newProcRecord(5, T0, T0), status: "SKIPPED" as const };
      await h.pipeline.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [record], requests: [{ request: done, expectedVersion: s1.version }] }));
      expect(await s.get(r.requestId)).toEqual(done);
      expect(await h.pipeline.transaction((tx) => tx.openRequests())).toEqual([]);
      // A closed request stays closed: a writer still holding the old version changes nothing.
      expect(await s.update(evolveRequest(s1, { type: "expired", at: T0 + 999_000, reason: "timeout" }), s1.version)).toBe(false);
      expect(await s.get(r.requestId)).toEqual(done);
      expect((await s.open()).map((x) => x.requestId)).toEqual([registered.requestId]);
    });

    it("refuses to close a request that changed since the run loaded it, and writes nothing of the run", async () => {
      const r = await insert();
      const s1 = sent(r);
      await s.update(s1, r.version);
      await h.pipeline.enqueue([{ msgId: 1, receivedAt: T0 }], { horizon: 1 });
      const expired = evolveRequest(s1, { type: "expired", at: T0 + 2, reason: "timeout" });
      await s.update(expired, s1.version);
      const match = { rule: MatchRule.EXACT, msgId: 1, replyDttm: "20260305091620", replyAt: T0, detail: "exact" };
      const done = evolveRequest(s1, { type: "answered", at: T0 + 3, match });
      const record = { ...newProcRecord(1, T0, T0), status: "SUCCEEDED" as const };
      await expect(
        h.pipeline.transaction((tx) =>
          tx.applyRun({ ...emptyRunDecision, records: [record], requests: [{ request: done, expectedVersion: s1.version }], references: [{ rtype: "ARPT", rkey: "PEK", fields: {}, deleted: false, version: 1, msgId: 1 }] }),
        ),
      ).rejects.toSatisfy(isMsgxError);
      expect(await s.get(r.requestId)).toEqual(expired);
      expect((await h.pipeline.get(1))?.status).toBe("PENDING");
      expect(await h.references.get("ARPT", "PEK")).toBeUndefined();
    });

    it("upserts reference rows by (rtype, rkey) with their typed fields and version, keeps deleted tombstones, pages in code-point order", async () => {
      const write = (refs: readonly RefChange[]) =>
        h.pipeline.transaction((tx) => tx.applyRun({ ...emptyRunDecision, references: refs }));
      await write([
        { rtype: "ARPT", rkey: "PEK", fields: { ICCD: "ZBAA", ANAM: "Beijing Capital", ABBR: { ABR1: "BJS" } }, deleted: false, version: 1, msgId: 1 },
        { rtype: "ARPT", rkey: "CAN", fields: { ICCD: "ZGGG", ANAM: null }, deleted: false, version: 1, msgId: 1 },
        { rtype: "ARPT", rkey: "can", fields: { __proto__x: "1", "ü": "ß" }, deleted: false, version: 1, msgId: 1 },
        { rtype: "GLST", rkey: "A1", fields: {}, deleted: false, version: 1, msgId: 1 },
      ]);
      await write([
        { rtype: "ARPT", rkey: "PEK", fields: { ICCD: "ZBAA", ANAM: "Beijing" }, deleted: false, version: 2, msgId: 2 },
        { rtype: "GLST", rkey: "A1", fields: { GTNM: "A1" }, deleted: true, version: 2, msgId: 2 },
      ]);
      expect(await h.references.get("ARPT", "PEK")).toMatchObject({ rtype: "ARPT", rkey: "PEK", fields: { ICCD: "ZBAA", ANAM: "Beijing" }, deleted: false, version: 2, msgId: 2 });
      expect((await h.references.get("ARPT", "can"))?.fields).toEqual({ __proto__x: "1", "ü": "ß" });
      expect(await h.references.get("ARPT", "CAN")).toMatchObject({ fields: { ICCD: "ZGGG", ANAM: null }, version: 1 });
      expect(await h.references.get("GLST", "A1")).toMatchObject({ deleted: true, fields: { GTNM: "A1" }, version: 2, msgId: 2 });
      expect((await h.references.list({ rtype: "ARPT", limit: 10 })).map((e) => e.rkey)).toEqual(["CAN", "PEK", "can"]);
      expect((await h.references.list({ rtype: "ARPT", limit: 1, afterKey: "CAN" })).map((e) => e.rkey)).toEqual(["PEK"]);
      expect(await h.references.list({ rtype: "GLST", limit: 10 })).toEqual([]);
      expect((await h.references.list({ rtype: "GLST", limit: 10, includeDeleted: true })).map((e) => e.rkey)).toEqual(["A1"]);
      expect(await h.references.types()).toEqual([
        { rtype: "ARPT", live: 3 },
        { rtype: "GLST", live: 0 },
      ]);
    });
  });
}
