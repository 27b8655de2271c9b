import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import { ManualClock } from "@msgx/core/fakes";
import { DeliveryStatus, EventType, type OutboxEvent, type OutboxEventDraft } from "@msgx/core";
import { deadLetterDraft, sendDraft } from "./message-envelope.js";
import { describeKeyOrderContract } from "./reliable-message-key-order.contract.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";
import { bindReliableMessageStore, describeReliableMessageHistoryContract } from "./reliable-message-history.contract.js";
import { ReliableMessageService } from "./reliable-message-service.js";
import { ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";
import { describeSubscriptionDeliveryContract } from "./subscription-delivery-store.contract.js";

/** One fresh, empty store per test, and a way to read the outbox it writes. */
export interface ReliableMessageStoreContractSubject {
  readonly store: ReliableMessageStore;
  /** Every outbox row (`MSG_EVENT`), ascending by EVENT_ID. */
  outboxRows(): Promise<readonly OutboxEvent[]>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);

/** A stored message with every field set, for contract tests and fixtures. */
export function sampleReliableMessage(messageId: string, extra: Partial<ReliableMessage> = {}): ReliableMessage {
  return {
    messageId,
    version: 1,
    body: JSON.stringify({ orderNo: messageId, amount: "12.50" }),
    dataType: "json",
    consumerQueue: "accounting",
    status: ReliableMessageStatus.WAITING_CONFIRM,
    sendCount: 0,
    dead: false,
    checkCount: 0,
    nextCheckAt: T0 + 60_000,
    lastSentAt: null,
    createdAt: T0,
    updatedAt: T0,
    confirmedAt: null,
    remark: null,
    field1: `BANK-${messageId}`,
    field2: null,
    field3: null,
    headers: null,
    checkDelayMs: null,
    deliverAt: null,
    key: null,
    orderSeq: null,
    lastEventId: null,
    rejectCount: 0,
    rejectedAt: null,
    lastError: null,
    ...extra,
  };
}

const bind = bindReliableMessageStore;

/** `message` confirmed and sent once at `at`. */
const sending = (message: ReliableMessage, at = T0 + 1_000, extra: Partial<ReliableMessage> = {}): ReliableMessage => ({
  ...message,
  version: message.version + 1,
  status: ReliableMessageStatus.SENDING,
  sendCount: message.sendCount + 1,
  lastSentAt: at,
  confirmedAt: message.confirmedAt ?? at,
  updatedAt: at,
  nextCheckAt: at + 60_000,
  ...extra,
});

/**
 * The behaviour every `ReliableMessageStore` must show (see the port's JSDoc). The in-memory fake
 * runs it in a unit spec; each adapter runs it against its real database.
 */
export function describeReliableMessageStoreContract(
  name: string,
  factory: () => Promise<ReliableMessageStoreContractSubject>,
  /** `keyOrderRuns`: runs of the per-key order property (default 40; fewer against a slow database). */
  features: { readonly keyOrderRuns?: number } = {},
): void {
  describe(`ReliableMessageStore contract: ${name}`, () => {
    let subject: ReliableMessageStoreContractSubject;
    let store: ReliableMessageStore;
    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.close();
    });

    describeReliableMessageHistoryContract(() => store);
    describeKeyOrderContract(() => subject, { numRuns: features.keyOrderRuns ?? 40 });

    const insert = async (m: ReliableMessage, send: OutboxEventDraft | null = null) => {
      const r = await store.commit({ op: "insert", message: m, send });
      if (!r.ok) throw new Error(`insert of ${m.messageId} refused: ${r.conflict}`);
      return r;
    };

    it("insert stores every field intact; get of an unknown id is undefined", async () => {
      const m = sampleReliableMessage("M-1", {
        body: "payé ✓ 🛫 \"quoted\" \\ \n line two",
        remark: "r",
        field2: "f2",
        field3: "",
        nextCheckAt: T0 + 1,
        createdAt: T0 - 7,
        updatedAt: T0 + 3,
        headers: { "x-tenant": "acme ✓", b: "", a: "1".repeat(1_000) },
        checkDelayMs: 90_000,
        deliverAt: T0 + 86_400_000,
        rejectCount: 2,
        rejectedAt: T0 + 2,
        lastError: "handler failed: ✗ \"quoted\"",
      });
      expect(await store.commit({ op: "insert", message: m, send: null })).toEqual({ ok: true, eventId: null });
      expect(await store.get("M-1")).toEqual(m);
      expect(await store.get("M-2")).toBeUndefined();
      expect(await subject.outboxRows()).toEqual([]);
      const nulls = sampleReliableMessage("M-3", { dataType: null, field1: null, nextCheckAt: null, body: "" });
      await insert(nulls);
      expect(await store.get("M-3")).toEqual(nulls);
    });

    it("a delivery time asked for at the prepare is stored; a confirm without a time schedules the first send then, a confirm's own time wins", async () => {
      const clock = new ManualClock(T0);
      const service = new ReliableMessageService({ store, clock });
      const at = T0 + 10 * 60_000;
      const draft = (messageId: string) => ({ messageId, body: "{}", consumerQueue: "accounting" });
      expect(await service.saveWaitingConfirm(draft("D-1"), { deliverAt: at })).toMatchObject({ status: "WAITING_CONFIRM", deliverAt: at });
      expect(await service.saveWaitingConfirm(draft("D-2"), { delayMs: 60_000 })).toMatchObject({ deliverAt: T0 + 60_000 });
      await service.saveWaitingConfirm(draft("D-3"), { deliverAt: at });
      clock.advance(1_000);
      expect(await service.confirmAndSend("D-1")).toMatchObject({ event: "scheduled", eventId: null, message: { status: "SENDING", sendCount: 0, nextCheckAt: at } });
      expect(await service.confirmAndSend("D-2", { delayMs: 5_000 })).toMatchObject({ event: "scheduled", message: { nextCheckAt: T0 + 6_000 } });
      expect(await service.confirmAndSend("D-3", { delayMs: 0 })).toMatchObject({ event: "confirmed", message: { sendCount: 1 } });
      expect(await store.get("D-1")).toMatchObject({ status: "SENDING", sendCount: 0, nextCheckAt: at, deliverAt: at });
      expect((await subject.outboxRows()).map((r) => r.payload)).toEqual([expect.objectContaining({ messageId: "D-3" })]);
      await expect(service.saveWaitingConfirm(draft("D-4"), { deliverAt: at, delayMs: 1 })).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
      expect(await store.get("D-4")).toBeUndefined();
    });

    it("insert of a taken id is the conflict `exists` and writes nothing", async () => {
      const m = sampleReliableMessage("M-1");
      await insert(m);
      const other = sending(sampleReliableMessage("M-1", { body: "other" }));
      expect(await store.commit({ op: "insert", message: other, send: sendDraft(other) })).toEqual({ ok: false, conflict: "exists" });
      expect(await store.get("M-1")).toEqual(m);
      expect(await subject.outboxRows()).toEqual([]);
    });

    it("a write that sends appends one PENDING outbox row in the same commit, returns its EVENT_ID and stores it as lastEventId", async () => {
      const m = sending(sampleReliableMessage("M-1", { version: 0 }));
      const r = await insert(m, sendDraft(m));
      const rows = await subject.outboxRows();
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(r).toEqual({ ok: true, eventId: row.eventId });
      expect(await store.get("M-1")).toEqual({ ...m, lastEventId: row.eventId });
      const again = sending({ ...m, lastEventId: row.eventId }, T0 + 90_000);
      const u = await store.commit({ op: "update", expectedVersion: m.version, message: again, send: sendDraft(again) });
      expect(u.ok && u.eventId).toBeGreaterThan(row.eventId);
      expect((await store.get("M-1"))!.lastEventId).toBe(u.ok ? u.eventId : null);
      const quiet = { ...again, version: again.version + 1, lastEventId: null, nextCheckAt: T0 + 200_000 };
      await store.commit({ op: "update", expectedVersion: again.version, message: quiet, send: null });
      expect((await store.get("M-1"))!.lastEventId).toBeNull();
      expect(row).toMatchObject({
        target: "KAFKA:rmq.accounting",
        partitionKey: "M-1",
        eventType: EventType.UPSERT,
        stateVersion: 1,
        sourceMsgId: 0,
        status: DeliveryStatus.PENDING,
        attempts: 0,
        nextAttemptAt: null,
        lastError: null,
        sentAt: null,
      });
      expect(row.payload).toEqual(sendDraft(m).payload);
    });

    it("update compares the version: the expected one replaces and sends, a stale one or a missing message writes nothing", async () => {
      const m = sampleReliableMessage("M-1");
      await insert(m);
      const next = sending(m);
      const r = await store.commit({ op: "update", expectedVersion: 1, message: next, send: sendDraft(next) });
      expect(r.ok).toBe(true);
      const stored = { ...next, lastEventId: r.ok ? r.eventId : null };
      expect(await store.get("M-1")).toEqual(stored);
      const again = sending(next);
      expect(await store.commit({ op: "update", expectedVersion: 1, message: again, send: sendDraft(again) })).toEqual({ ok: false, conflict: "changed" });
      const ghost = sending(sampleReliableMessage("M-9"));
      expect(await store.commit({ op: "update", expectedVersion: 1, message: ghost, send: sendDraft(ghost) })).toEqual({ ok: false, conflict: "missing" });
      expect(await store.get("M-1")).toEqual(stored);
      expect((await subject.outboxRows()).map((e) => [e.partitionKey, e.stateVersion])).toEqual([["M-1", 1]]);
    });

    it("a dead-letter row commits with the update, is not a send (lastEventId unchanged) and goes to the DLQ target", async () => {
      const m = sending(sampleReliableMessage("M-1", { version: 0 }));
      const first = await insert(m, sendDraft(m));
      const sentId = first.eventId!;
      const dead = { ...m, version: m.version + 1, dead: true, nextCheckAt: null, lastError: "never acknowledged after 6 sends", lastEventId: sentId };
      const r = await store.commit({ op: "update", expectedVersion: m.version, message: dead, send: null, deadLetter: deadLetterDraft(dead) });
      const rows = await subject.outboxRows();
      expect(rows.map((e) => e.target)).toEqual(["KAFKA:rmq.accounting", "KAFKA:rmq-dlq.accounting"]);
      expect(r).toEqual({ ok: true, eventId: rows[1]!.eventId });
      expect(rows[1]!.payload).toEqual({ ...sendDraft(m).payload as object, deadReason: "never acknowledged after 6 sends" });
      expect(await store.get("M-1")).toEqual(dead);
      // A refused dead-letter row rolls the change back.
      const again = { ...dead, version: dead.version + 1 };
      await expect(
        store.commit({ op: "update", expectedVersion: dead.version, message: again, send: null, deadLetter: { ...deadLetterDraft(dead), eventType: "BOGUS" as EventType } }),
      ).rejects.toSatisfy(isMsgxError);
      expect(await store.get("M-1")).toEqual(dead);
      expect(await subject.outboxRows()).toHaveLength(2);
    });

    it("the terminal statuses are stored like the others", async () => {
      const acked = sending(sampleReliableMessage("A", { version: 0 }), T0, { status: ReliableMessageStatus.ACKNOWLEDGED, nextCheckAt: null });
      const cancelled = sampleReliableMessage("C", { status: ReliableMessageStatus.CANCELLED, nextCheckAt: null });
      await insert(acked);
      await insert(cancelled);
      expect(await store.get("A")).toEqual(acked);
      expect(await store.get("C")).toEqual(cancelled);
      expect(await store.due(ReliableMessageStatus.SENDING, T0 + 10_000_000, 10)).toEqual([]);
    });

    it("purgeFinished: acknowledged and cancelled ones changed before the instant, oldest first, at most limit; live ones never", async () => {
      const fin = (id: string, status: ReliableMessageStatus, updatedAt: number) =>
        insert(sampleReliableMessage(id, { status, updatedAt, nextCheckAt: null, sendCount: status === ReliableMessageStatus.ACKNOWLEDGED ? 1 : 0 }));
      await fin("A-old", ReliableMessageStatus.ACKNOWLEDGED, T0 - 3_000);
      await fin("C-old", ReliableMessageStatus.CANCELLED, T0 - 2_000);
      await fin("A-mid", ReliableMessageStatus.ACKNOWLEDGED, T0 - 1_000);
      await fin("A-new", ReliableMessageStatus.ACKNOWLEDGED, T0);
      await insert(sampleReliableMessage("W-old", { updatedAt: T0 - 9_000 }));
      await insert(sending(sampleReliableMessage("D-old", { version: 0, updatedAt: T0 - 9_000 }), T0 - 9_000, { dead: true, nextCheckAt: null }));
      await insert(sampleReliableMessage("R-old", { updatedAt: T0 - 9_000, dead: true, nextCheckAt: null }));
      expect(await store.purgeFinished(T0, 2)).toBe(2);
      expect(await store.get("A-old")).toBeUndefined();
      expect(await store.get("C-old")).toBeUndefined();
      expect(await store.get("A-mid")).toBeDefined();
      expect(await store.purgeFinished(T0, 10)).toBe(1);
      expect(await store.purgeFinished(T0, 10)).toBe(0);
      expect((await store.scan({}, null, 100)).map((m) => m.messageId)).toEqual(["A-new", "D-old", "R-old", "W-old"]);
      await expect(store.purgeFinished(T0, 0)).rejects.toBeInstanceOf(RangeError);
      // The id is free again.
      await insert(sampleReliableMessage("A-old"));
    });

    it("countByPhase counts every phase, zeros included", async () => {
      expect(await store.countByPhase()).toEqual({ WAITING_CONFIRM: 0, REVIEW: 0, SENDING: 0, DEAD: 0, ACKNOWLEDGED: 0, CANCELLED: 0 });
      await insert(sampleReliableMessage("W1"));
      await insert(sampleReliableMessage("W2"));
      await insert(sampleReliableMessage("R1", { dead: true, nextCheckAt: null }));
      await insert(sending(sampleReliableMessage("S1", { version: 0 })));
      await insert(sending(sampleReliableMessage("D1", { version: 0 }), T0, { dead: true, nextCheckAt: null }));
      await insert(sending(sampleReliableMessage("A1", { version: 0 }), T0, { status: ReliableMessageStatus.ACKNOWLEDGED, nextCheckAt: null }));
      await insert(sampleReliableMessage("C1", { status: ReliableMessageStatus.CANCELLED, nextCheckAt: null }));
      expect(await store.countByPhase()).toEqual({ WAITING_CONFIRM: 2, REVIEW: 1, SENDING: 1, DEAD: 1, ACKNOWLEDGED: 1, CANCELLED: 1 });
    });

    it("countByQueue counts every phase of each queue holding a message, by queue name", async () => {
      expect(await store.countByQueue()).toEqual([]);
      const on = (queue: string, m: ReliableMessage): ReliableMessage => ({ ...m, consumerQueue: queue });
      await insert(on("q-b", sampleReliableMessage("W1")));
      await insert(on("q-b", sampleReliableMessage("R1", { dead: true, nextCheckAt: null })));
      await insert(on("q-a", sending(sampleReliableMessage("S1", { version: 0 }))));
      await insert(on("q-a", sending(sampleReliableMessage("D1", { version: 0 }), T0, { dead: true, nextCheckAt: null })));
      await insert(on("q-a", sending(sampleReliableMessage("D2", { version: 0 }), T0, { dead: true, nextCheckAt: null })));
      await insert(on("Q-c", sampleReliableMessage("C1", { status: ReliableMessageStatus.CANCELLED, nextCheckAt: null })));
      const zero = { WAITING_CONFIRM: 0, REVIEW: 0, SENDING: 0, DEAD: 0, ACKNOWLEDGED: 0, CANCELLED: 0 };
      expect(await store.countByQueue()).toEqual([
        { queue: "Q-c", phases: { ...zero, CANCELLED: 1 } },
        { queue: "q-a", phases: { ...zero, SENDING: 1, DEAD: 2 } },
        { queue: "q-b", phases: { ...zero, WAITING_CONFIRM: 1, REVIEW: 1 } },
      ]);
    });

    it("update without a send writes no outbox row", async () => {
      const m = sampleReliableMessage("M-1");
      await insert(m);
      const deferred = { ...m, version: 2, checkCount: 1, nextCheckAt: T0 + 120_000 };
      expect(await store.commit({ op: "update", expectedVersion: 1, message: deferred, send: null })).toEqual({ ok: true, eventId: null });
      expect(await store.get("M-1")).toEqual(deferred);
      expect(await subject.outboxRows()).toEqual([]);
    });

    it("delete compares the version; stale or missing deletes nothing", async () => {
      await insert(sampleReliableMessage("M-1"));
      expect(await store.commit({ op: "delete", messageId: "M-1", expectedVersion: 2 })).toEqual({ ok: false, conflict: "changed" });
      expect(await store.get("M-1")).toBeDefined();
      expect(await store.commit({ op: "delete", messageId: "M-1", expectedVersion: 1 })).toEqual({ ok: true, eventId: null });
      expect(await store.get("M-1")).toBeUndefined();
      expect(await store.commit({ op: "delete", messageId: "M-1", expectedVersion: 1 })).toEqual({ ok: false, conflict: "missing" });
    });

    it("a send-only write appends an outbox row and stores no message", async () => {
      const m = sending(sampleReliableMessage("D-1", { version: 0 }));
      const r = await store.commit({ op: "send", send: sendDraft(m) });
      const rows = await subject.outboxRows();
      expect(r).toEqual({ ok: true, eventId: rows[0]!.eventId });
      expect(rows).toHaveLength(1);
      expect(await store.get("D-1")).toBeUndefined();
    });

    it("atomic: when the outbox row is refused, the message change is rolled back too", async () => {
      const m = sampleReliableMessage("M-1");
      await insert(m);
      const next = sending(m);
      const refused = { ...sendDraft(next), eventType: "BOGUS" as EventType };
      const error = await store.commit({ op: "update", expectedVersion: 1, message: next, send: refused }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isMsgxError(error)).toBe(true);
      expect(await store.get("M-1")).toEqual(m);
      const fresh = sending(sampleReliableMessage("M-2", { version: 0 }));
      await expect(store.commit({ op: "insert", message: fresh, send: { ...sendDraft(fresh), eventType: "BOGUS" as EventType } })).rejects.toSatisfy(isMsgxError);
      expect(await store.get("M-2")).toBeUndefined();
      expect(await subject.outboxRows()).toEqual([]);
    });

    it("EVENT_IDs ascend in commit order across messages and sends", async () => {
      const a = sending(sampleReliableMessage("A", { version: 0 }));
      const b = sending(sampleReliableMessage("B", { version: 0, consumerQueue: "billing" }));
      const ids = [(await insert(a, sendDraft(a))).eventId, (await insert(b, sendDraft(b))).eventId];
      const a2 = sending(a, T0 + 70_000);
      const u = await store.commit({ op: "update", expectedVersion: a.version, message: a2, send: sendDraft(a2) });
      ids.push(u.ok ? u.eventId : null);
      const rows = await subject.outboxRows();
      expect(rows.map((e) => e.eventId)).toEqual(ids);
      expect(ids).toEqual([...ids].sort((x, y) => x! - y!));
      expect(rows.map((e) => [e.target, e.partitionKey, e.stateVersion])).toEqual([
        ["KAFKA:rmq.accounting", "A", 1],
        ["KAFKA:rmq.billing", "B", 1],
        ["KAFKA:rmq.accounting", "A", 2],
      ]);
    });

    it("concurrent writes expecting the same version: exactly one wins", async () => {
      const m = sampleReliableMessage("M-1");
      await insert(m);
      const tries = Array.from({ length: 6 }, (_, i) => {
        const next = sending(m, T0 + i);
        return store.commit({ op: "update", expectedVersion: 1, message: next, send: sendDraft(next) });
      });
      const results = await Promise.all(tries);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.conflict === "changed")).toBe(true);
      expect(await subject.outboxRows()).toHaveLength(1);
      expect((await store.get("M-1"))!.version).toBe(2);
    });

    it("commitMany: one result per write in order, each as commit would answer it; the applied ones commit with their outbox rows", async () => {
      const a = sampleReliableMessage("A");
      const b = sampleReliableMessage("B");
      await insert(a);
      await insert(b);
      const aSent = sending(a);
      const c = sending(sampleReliableMessage("C", { version: 0 }));
      const results = await store.commitMany([
        { op: "update", expectedVersion: 1, message: aSent, send: sendDraft(aSent) },
        { op: "update", expectedVersion: 7, message: sending(b), send: sendDraft(sending(b)) },
        { op: "update", expectedVersion: 1, message: sending(sampleReliableMessage("GHOST")), send: null },
        { op: "insert", message: sampleReliableMessage("B", { body: "other" }), send: null },
        { op: "insert", message: c, send: sendDraft(c) },
        { op: "delete", messageId: "B", expectedVersion: 1 },
      ]);
      const rows = await subject.outboxRows();
      expect(rows.map((r) => (r.payload as { messageId: string }).messageId)).toEqual(["A", "C"]);
      expect(results).toEqual([
        { ok: true, eventId: rows[0]!.eventId },
        { ok: false, conflict: "changed" },
        { ok: false, conflict: "missing" },
        { ok: false, conflict: "exists" },
        { ok: true, eventId: rows[1]!.eventId },
        { ok: true, eventId: null },
      ]);
      expect(await store.get("A")).toEqual({ ...aSent, lastEventId: rows[0]!.eventId });
      expect(await store.get("B")).toBeUndefined();
      expect(await store.commitMany([])).toEqual([]);
    });

    it("commitMany of updates without outbox rows (a batch acknowledgement): every field stored, a stale or missing one answered, no row written", async () => {
      for (const id of ["Q-1", "Q-2", "Q-3"]) {
        const m = sending(sampleReliableMessage(id, { version: 0 }));
        await insert(m, sendDraft(m));
      }
      const rows = (await subject.outboxRows()).length;
      const [q1, q2, q3] = await Promise.all(["Q-1", "Q-2", "Q-3"].map(async (id) => (await store.get(id))!));
      const acked = (m: ReliableMessage, extra: Partial<ReliableMessage> = {}): ReliableMessage => ({ ...m, version: m.version + 1, status: ReliableMessageStatus.ACKNOWLEDGED, nextCheckAt: null, updatedAt: T0 + 5_000, ...extra });
      const q1Acked = acked(q1!, { lastError: "acknowledged ✓ \"late\"", headers: { "x-b": "2", "x-a": "1" }, deliverAt: T0 + 9, field3: null });
      const results = await store.commitMany([
        { op: "update", expectedVersion: q1!.version, message: q1Acked, send: null },
        { op: "update", expectedVersion: q2!.version + 3, message: acked(q2!, { version: q2!.version + 4 }), send: null },
        { op: "update", expectedVersion: 1, message: acked(sampleReliableMessage("Q-GONE")), send: null, deadLetter: null },
        { op: "update", expectedVersion: q3!.version, message: acked(q3!), send: null },
      ]);
      expect(results).toEqual([{ ok: true, eventId: null }, { ok: false, conflict: "changed" }, { ok: false, conflict: "missing" }, { ok: true, eventId: null }]);
      expect(await store.get("Q-1")).toEqual(q1Acked);
      expect(await store.get("Q-2")).toEqual(q2);
      expect(await store.get("Q-3")).toEqual(acked(q3!));
      expect(await store.get("Q-GONE")).toBeUndefined();
      expect(await subject.outboxRows()).toHaveLength(rows);
    });

    it("commitMany is atomic: an outbox row refused anywhere in the batch writes nothing of it", async () => {
      const a = sampleReliableMessage("A");
      await insert(a);
      const acked = { ...sending(a), status: ReliableMessageStatus.ACKNOWLEDGED };
      const c = sending(sampleReliableMessage("C", { version: 0 }));
      await expect(
        store.commitMany([
          { op: "update", expectedVersion: 1, message: acked, send: null },
          { op: "insert", message: c, send: { ...sendDraft(c), eventType: "BOGUS" as EventType } },
        ]),
      ).rejects.toSatisfy(isMsgxError);
      expect(await store.get("A")).toEqual(a);
      expect(await store.get("C")).toBeUndefined();
      expect(await subject.outboxRows()).toEqual([]);
    });

    it("a batch acknowledgement through the service: per id ok, already acknowledged, unknown, never sent; one id changed meanwhile is decided again", async () => {
      const service = new ReliableMessageService({ store, clock: new ManualClock(T0) });
      for (const id of ["S-1", "S-2", "S-3", "W-1"]) await service.saveWaitingConfirm({ messageId: id, body: "{}", consumerQueue: "accounting" });
      for (const id of ["S-1", "S-2", "S-3"]) await service.confirmAndSend(id);
      await service.acknowledge("S-2");
      const results = await service.acknowledgeMany(["S-1", "S-2", "NOPE", "W-1", "S-1", "S-3"]);
      expect(results.map((r) => ("outcome" in r ? { id: r.messageId, applied: r.outcome.applied, status: r.outcome.message?.status } : { id: r.messageId, code: r.error.code }))).toEqual([
        { id: "S-1", applied: true, status: "ACKNOWLEDGED" },
        { id: "S-2", applied: false, status: "ACKNOWLEDGED" },
        { id: "NOPE", code: "NOT_FOUND" },
        { id: "W-1", code: "ILLEGAL_STATE" },
        { id: "S-3", applied: true, status: "ACKNOWLEDGED" },
      ]);
      for (const id of ["S-1", "S-2", "S-3"]) expect((await store.get(id))?.status, id).toBe("ACKNOWLEDGED");
      expect((await store.get("W-1"))?.status).toBe("WAITING_CONFIRM");
      // The store sees one transaction of writes; a write whose version moved under it is a conflict there, and the service decides that id again.
      await service.saveWaitingConfirm({ messageId: "S-4", body: "{}", consumerQueue: "accounting" });
      await service.confirmAndSend("S-4");
      const racing: ReliableMessageStore = {
        ...bind(store),
        commitMany: async (writes) => {
          await service.resendByMessageId("S-4");
          return store.commitMany(writes);
        },
      };
      const raced = new ReliableMessageService({ store: racing, clock: new ManualClock(T0) });
      expect(await raced.acknowledgeMany(["S-4"])).toMatchObject([{ messageId: "S-4", outcome: { applied: true, message: { status: "ACKNOWLEDGED", sendCount: 2 } } }]);
    });

    it("due: one status, not dead, nextCheckAt at or before now, oldest first (ties by id), at most limit", async () => {
      await insert(sampleReliableMessage("W-b", { nextCheckAt: T0 + 10 }));
      await insert(sampleReliableMessage("W-a", { nextCheckAt: T0 + 10 }));
      await insert(sampleReliableMessage("W-c", { nextCheckAt: T0 + 5 }));
      await insert(sampleReliableMessage("W-later", { nextCheckAt: T0 + 11 }));
      await insert(sending(sampleReliableMessage("S-1", { version: 0 }), T0 - 60_000));
      await insert(sending(sampleReliableMessage("S-dead", { version: 0 }), T0 - 60_000, { dead: true, nextCheckAt: null }));
      await insert(sending(sampleReliableMessage("S-deadish", { version: 0 }), T0 - 60_000, { dead: true }));
      const ids = (ms: readonly ReliableMessage[]) => ms.map((m) => m.messageId);
      expect(ids(await store.due(ReliableMessageStatus.WAITING_CONFIRM, T0 + 10, 10))).toEqual(["W-c", "W-a", "W-b"]);
      expect(ids(await store.due(ReliableMessageStatus.WAITING_CONFIRM, T0 + 10, 2))).toEqual(["W-c", "W-a"]);
      expect(ids(await store.due(ReliableMessageStatus.WAITING_CONFIRM, T0 + 4, 10))).toEqual([]);
      expect(ids(await store.due(ReliableMessageStatus.SENDING, T0, 10))).toEqual(["S-1"]);
    });

    it("scan: keyset by message id in code-point order, with filters", async () => {
      const idsIn = ["b", "a", "B", "a-2", "é", "z", "😀", "\uffee"];
      for (const [i, id] of idsIn.entries()) {
        const base = sampleReliableMessage(id, { consumerQueue: i % 2 === 0 ? "q1" : "q2" });
        await insert(i % 3 === 0 ? sending({ ...base, version: 0 }, T0, { dead: true, nextCheckAt: null }) : base);
      }
      const all = await store.scan({}, null, 100);
      expect(all.map((m) => m.messageId)).toEqual(["B", "a", "a-2", "b", "z", "é", "\uffee", "😀"]);
      const first = await store.scan({}, null, 3);
      const rest = await store.scan({}, first[2]!.messageId, 100);
      expect([...first, ...rest].map((m) => m.messageId)).toEqual(all.map((m) => m.messageId));
      const deadQ1 = await store.scan({ consumerQueue: "q1", dead: true, status: ReliableMessageStatus.SENDING }, null, 100);
      expect(deadQ1.map((m) => m.messageId).sort()).toEqual(["b", "😀"].sort());
      expect((await store.scan({ messageIds: ["z", "nope", "a"] }, null, 10)).map((m) => m.messageId)).toEqual(["a", "z"]);
      expect(await store.scan({}, "😀", 10)).toEqual([]);
    });

    it("listPage: ordered by creation then id, 1-based pages, total and page count, filters", async () => {
      for (let i = 0; i < 7; i++) {
        await insert(sampleReliableMessage(`M-${i}`, { createdAt: T0 + (i % 3) * 1_000, consumerQueue: i < 5 ? "accounting" : "billing" }));
      }
      const p1 = await store.listPage({}, 1, 3);
      expect(p1).toMatchObject({ pageNum: 1, pageSize: 3, total: 7, totalPages: 3 });
      expect(p1.items.map((m) => m.messageId)).toEqual(["M-0", "M-3", "M-6"]);
      const p3 = await store.listPage({}, 3, 3);
      expect(p3.items.map((m) => m.messageId)).toEqual(["M-5"]);
      expect((await store.listPage({}, 4, 3)).items).toEqual([]);
      const acc = await store.listPage({ consumerQueue: "accounting", createdFrom: T0 + 1_000, createdBefore: T0 + 2_000 }, 1, 10);
      expect(acc.items.map((m) => m.messageId)).toEqual(["M-1", "M-4"]);
      expect(acc.total).toBe(2);
      const none = await store.listPage({ status: ReliableMessageStatus.SENDING }, 1, 10);
      expect(none).toMatchObject({ items: [], total: 0, totalPages: 0 });
      await expect(store.listPage({}, 0, 10)).rejects.toBeInstanceOf(RangeError);
      await expect(store.listPage({}, 1, 0)).rejects.toBeInstanceOf(RangeError);
    });
  });
  describeSubscriptionDeliveryContract(name, factory);
}
