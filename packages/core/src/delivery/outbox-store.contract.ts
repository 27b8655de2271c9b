import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryStatus, EventType, Target, type OutboxEvent, type OutboxEventDraft } from "../outbox/outbox-event.js";
import type { OutboxStore } from "./outbox-store.js";

/** One fresh, empty outbox per test, plus a way to write rows as the pipeline would. */
export interface OutboxStoreContractSubject {
  readonly outbox: OutboxStore;
  /** Stores `events` as PENDING rows, EVENT_IDs ascending in the given order; returns the rows. */
  seed(events: readonly OutboxEventDraft[]): Promise<OutboxEvent[]>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);

const draft = (target: Target, flid: string, stateVersion: number, extra: Partial<OutboxEventDraft> = {}): OutboxEventDraft => ({
  target,
  partitionKey: flid,
  eventType: EventType.UPSERT,
  stateVersion,
  payload: { flid, stateVersion, gates: [{ code: "A12", from: null }] },
  sourceMsgId: 1000 + stateVersion,
  traceparent: null,
  ...extra,
});

const ids = (events: readonly OutboxEvent[]): number[] => events.map((e) => e.eventId);

/**
 * The behaviour every `OutboxStore` must show (see the port's JSDoc). The in-memory fake runs it
 * in a unit spec; each adapter runs it against its real database.
 */
export function describeOutboxStoreContract(name: string, factory: () => Promise<OutboxStoreContractSubject>): void {
  describe(`OutboxStore contract: ${name}`, () => {
    let subject: OutboxStoreContractSubject;
    let outbox: OutboxStore;
    beforeEach(async () => {
      subject = await factory();
      outbox = subject.outbox;
    });
    afterEach(async () => {
      await subject.close();
    });

    const one = async (id: number): Promise<OutboxEvent> => {
      const [row] = await outbox.get([id]);
      if (row === undefined) throw new Error(`event ${id} not found`);
      return row;
    };

    it("stores seeded events PENDING with ascending ids and every field intact", async () => {
      const rows = await subject.seed([
        draft(Target.MSG, "F1", 1, { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }),
        draft(Target.SCHD, "F1", 1),
        draft(Target.SCHD, "F2", 3, { eventType: EventType.TOMBSTONE, payload: null }),
      ]);
      expect(rows).toHaveLength(3);
      expect(ids(rows)).toEqual([...ids(rows)].sort((a, b) => a - b));
      expect(new Set(ids(rows)).size).toBe(3);
      const stored = await outbox.get(ids(rows));
      expect(stored.map((e) => [e.target, e.partitionKey, e.eventType, e.stateVersion, e.status, e.attempts])).toEqual([
        [Target.MSG, "F1", EventType.UPSERT, 1, DeliveryStatus.PENDING, 0],
        [Target.SCHD, "F1", EventType.UPSERT, 1, DeliveryStatus.PENDING, 0],
        [Target.SCHD, "F2", EventType.TOMBSTONE, 3, DeliveryStatus.PENDING, 0],
      ]);
      expect(stored[0]!.payload).toEqual({ flid: "F1", stateVersion: 1, gates: [{ code: "A12", from: null }] });
      expect(stored[0]!.traceparent).toBe("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
      expect(stored[0]!.sourceMsgId).toBe(1001);
      expect(stored[2]!.payload).toBeNull();
      expect(stored.every((e) => e.nextAttemptAt === null && e.lastError === null && e.sentAt === null)).toBe(true);
    });

    it("keeps each payload as written, key order included", async () => {
      const payload = { zeta: 1, alpha: { y: 2, b: [3, { d: null, c: "航 \"x\"" }] }, flid: "F9", ab: true, a: -1.5 };
      const [row] = await subject.seed([draft(Target.MSG, "F9", 1, { payload })]);
      const [stored] = await outbox.pending(Target.MSG, T0, 10);
      expect(stored!.eventId).toBe(row!.eventId);
      expect(JSON.stringify(stored!.payload)).toBe(JSON.stringify(payload));
      expect(JSON.stringify((await one(row!.eventId)).payload)).toBe(JSON.stringify(payload));
    });

    it("gives back a row's extra headers exactly as written, and null for a row written without", async () => {
      const headers = { "msgx-owner": "LMS", "x-Mixed-Case": "航 \"x\"", "x-empty": "" };
      const [withHeaders, without, schd] = await subject.seed([
        draft(Target.MSG, "F1", 1, { headers }),
        draft(Target.MSG, "F2", 1),
        draft(Target.SCHD, "F1", 1, { headers: { "x-a": "1" } }),
      ]);
      const byId = new Map((await outbox.pending(Target.MSG, T0, 10)).map((e) => [e.eventId, e]));
      expect(byId.get(withHeaders!.eventId)?.headers).toEqual(headers);
      expect(byId.get(without!.eventId)?.headers).toBeNull();
      expect((await outbox.head(Target.MSG))?.headers).toEqual(headers);
      expect((await outbox.pendingSchd(10)).map((e) => e.headers)).toEqual([{ "x-a": "1" }]);
      expect((await outbox.get(ids([withHeaders!, without!, schd!]))).map((e) => e.headers)).toEqual([headers, null, { "x-a": "1" }]);
    });

    it("gives a payload's JSON text, when it gives one, exactly as written and only for a non-null payload", async () => {
      const payload = { zeta: 1, alpha: { y: 2, b: [3, { d: null, c: "航 \"x\"\u2028" }] }, flid: "F9", n: 1e21 };
      const rows = await subject.seed([draft(Target.MSG, "F9", 1, { payload }), draft(Target.SCHD, "F9", 2, { eventType: EventType.TOMBSTONE, payload: null })]);
      const read = [...(await outbox.pending(Target.MSG, T0, 10)), ...(await outbox.pendingSchd(10)), ...(await outbox.get(ids(rows)))];
      expect(read).toHaveLength(4);
      for (const e of read) {
        if (e.payloadJson === undefined) continue;
        expect(e.payloadJson).toBe(JSON.stringify(payload));
        expect(JSON.stringify(e.payload)).toBe(e.payloadJson);
      }
      expect(read.filter((e) => e.payload === null).map((e) => e.payloadJson)).toEqual([undefined, undefined]);
    });

    it("pending: the PENDING events of one target in EVENT_ID order, at most limit", async () => {
      const rows = await subject.seed([
        draft(Target.MSG, "F1", 1),
        draft(Target.SCHD, "F1", 1),
        draft(Target.MSG, "F2", 1),
        draft(Target.MSG, "F1", 2),
      ]);
      const msg = rows.filter((e) => e.target === Target.MSG);
      expect(ids(await outbox.pending(Target.MSG, T0, 10))).toEqual(ids(msg));
      expect(ids(await outbox.pending(Target.MSG, T0, 2))).toEqual(ids(msg).slice(0, 2));
      expect(ids(await outbox.pending(Target.SCHD, T0, 10))).toEqual([rows[1]!.eventId]);
      expect(await outbox.pending("KAFKA:other", T0, 10)).toEqual([]);
    });

    it("pending: stops before the first event that is not due; due from nextAttemptAt on", async () => {
      const [a, b, c] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1), draft(Target.MSG, "F3", 1)]);
      await outbox.recordFailure(b!.eventId, 1, T0 + 1_000, "boom");
      expect(ids(await outbox.pending(Target.MSG, T0, 10))).toEqual([a!.eventId]);
      expect(ids(await outbox.pending(Target.MSG, T0 + 999, 10))).toEqual([a!.eventId]);
      expect(ids(await outbox.pending(Target.MSG, T0 + 1_000, 10))).toEqual(ids([a!, b!, c!]));
    });

    it("pending after an event id: the run from the first PENDING event above it, due prefix and limit as before", async () => {
      const [a, b, c, d] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1), draft(Target.MSG, "F3", 1), draft(Target.MSG, "F4", 1)]);
      expect(ids(await outbox.pending(Target.MSG, T0, 10, a!.eventId))).toEqual(ids([b!, c!, d!]));
      expect(ids(await outbox.pending(Target.MSG, T0, 1, a!.eventId))).toEqual([b!.eventId]);
      await outbox.recordFailure(c!.eventId, 1, T0 + 1_000, "boom");
      expect(ids(await outbox.pending(Target.MSG, T0, 10, a!.eventId))).toEqual([b!.eventId]);
      expect(ids(await outbox.pending(Target.MSG, T0, 10, b!.eventId))).toEqual([]);
      await outbox.markSent([d!.eventId], T0);
      expect(ids(await outbox.pending(Target.MSG, T0 + 1_000, 10, b!.eventId))).toEqual([c!.eventId]);
      expect(await outbox.pending(Target.MSG, T0 + 1_000, 10, d!.eventId)).toEqual([]);
    });

    it("pending: a head in backoff blocks its own target only; head() still shows it", async () => {
      const [m1, , s1] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F1", 2), draft(Target.SCHD, "F1", 1)]);
      await outbox.recordFailure(m1!.eventId, 2, T0 + 5_000, "refused");
      expect(await outbox.pending(Target.MSG, T0, 10)).toEqual([]);
      expect((await outbox.head(Target.MSG))?.eventId).toBe(m1!.eventId);
      expect((await outbox.head(Target.MSG))?.nextAttemptAt).toBe(T0 + 5_000);
      expect(ids(await outbox.pending(Target.SCHD, T0, 10))).toEqual([s1!.eventId]);
    });

    it("head: the oldest PENDING event of the target, or undefined", async () => {
      expect(await outbox.head(Target.MSG)).toBeUndefined();
      const [m1, m2] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1)]);
      expect((await outbox.head(Target.MSG))?.eventId).toBe(m1!.eventId);
      await outbox.markSent([m1!.eventId], T0);
      expect((await outbox.head(Target.MSG))?.eventId).toBe(m2!.eventId);
      await outbox.markSent([m2!.eventId], T0);
      expect(await outbox.head(Target.MSG)).toBeUndefined();
    });

    it("markSent: marks exactly the given PENDING events SENT at `at`; others untouched", async () => {
      const [a, b, c] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1), draft(Target.SCHD, "F3", 1)]);
      await outbox.markSent([a!.eventId, c!.eventId, 987_654_321], T0 + 42);
      expect((await one(a!.eventId)).status).toBe(DeliveryStatus.SENT);
      expect((await one(a!.eventId)).sentAt).toBe(T0 + 42);
      expect((await one(c!.eventId)).status).toBe(DeliveryStatus.SENT);
      expect((await one(b!.eventId)).status).toBe(DeliveryStatus.PENDING);
      expect(ids(await outbox.pending(Target.MSG, T0, 10))).toEqual([b!.eventId]);
      expect(await outbox.countPending(Target.SCHD)).toBe(0);
      await outbox.markSent([], T0);
    });

    it("markSent: a resend never rewrites the first sentAt and never revives a DEAD event", async () => {
      const [a, b] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1)]);
      await outbox.markSent([a!.eventId], T0 + 1);
      await outbox.markDead(b!.eventId, "poison", 5);
      await outbox.markSent([a!.eventId, b!.eventId], T0 + 2);
      expect((await one(a!.eventId)).sentAt).toBe(T0 + 1);
      expect((await one(b!.eventId)).status).toBe(DeliveryStatus.DEAD);
    });

    it("markSent: stores each event's placement (the entry at its index); unsent events and missing entries read null", async () => {
      const [a, b, c, d] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.SCHD, "F1", 1), draft(Target.MSG, "F2", 1), draft(Target.MSG, "F3", 1)]);
      // An offset above 2^32: Kafka offsets are 64-bit.
      await outbox.markSent([a!.eventId, b!.eventId, c!.eventId], T0, [{ partition: 4, offset: 5_000_000_123 }, null]);
      const read = await outbox.get(ids([a!, b!, c!, d!]));
      expect(read.map((e) => e.placement ?? null)).toEqual([{ partition: 4, offset: 5_000_000_123 }, null, null, null]);
      await outbox.markSent([d!.eventId], T0);
      expect((await one(d!.eventId)).placement ?? null).toBeNull();
      const [e] = await subject.seed([draft(Target.MSG, "F4", 1)]);
      expect((await outbox.pending(Target.MSG, T0, 10)).map((p) => [p.eventId, p.placement ?? null])).toEqual([[e!.eventId, null]]);
    });

    it("markSent: a resend keeps the first placement (the mark that landed), and a DEAD event gets none", async () => {
      const [a, b] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1)]);
      await outbox.markSent([a!.eventId], T0 + 1, [{ partition: 0, offset: 10 }]);
      await outbox.markDead(b!.eventId, "poison", 5);
      await outbox.markSent([a!.eventId, b!.eventId], T0 + 2, [{ partition: 1, offset: 11 }, { partition: 1, offset: 12 }]);
      expect((await one(a!.eventId)).placement).toEqual({ partition: 0, offset: 10 });
      expect((await one(b!.eventId)).placement ?? null).toBeNull();
    });

    it("markSentAndRead: marks like markSent (events of two targets at once) and gives the run above afterEventId, as pending would", async () => {
      const [a, s1, b, c, d] = await subject.seed([
        draft(Target.MSG, "F1", 1),
        draft(Target.SCHD, "F1", 1),
        draft(Target.MSG, "F2", 1),
        draft(Target.MSG, "F3", 1),
        draft(Target.MSG, "F4", 1),
      ]);
      await outbox.recordFailure(d!.eventId, 1, T0 + 5_000, "refused");
      const run = await outbox.markSentAndRead(
        { eventIds: [a!.eventId, s1!.eventId], at: T0 + 7, placements: [{ partition: 2, offset: 70 }, null] },
        Target.MSG,
        T0,
        10,
        b!.eventId,
      );
      expect(ids(run)).toEqual([c!.eventId]);
      expect((await outbox.get([a!.eventId, s1!.eventId])).map((e) => [e.status, e.sentAt, e.placement ?? null])).toEqual([
        [DeliveryStatus.SENT, T0 + 7, { partition: 2, offset: 70 }],
        [DeliveryStatus.SENT, T0 + 7, null],
      ]);
      expect(ids(await outbox.pending(Target.MSG, T0, 10))).toEqual([b!.eventId, c!.eventId]);
      const again = await outbox.markSentAndRead({ eventIds: [a!.eventId], at: T0 + 9, placements: [{ partition: 3, offset: 1 }] }, Target.MSG, T0 + 5_000, 1, b!.eventId);
      expect(ids(again)).toEqual([c!.eventId]);
      expect((await one(a!.eventId)).placement).toEqual({ partition: 2, offset: 70 });
      expect((await one(a!.eventId)).sentAt).toBe(T0 + 7);
    });

    it("markSentAndRead: refuses a read at or below a marked id, and marks nothing", async () => {
      const [a, b] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1)]);
      await expect(outbox.markSentAndRead({ eventIds: [a!.eventId, b!.eventId], at: T0 }, Target.MSG, T0, 10, b!.eventId)).rejects.toThrow(RangeError);
      expect(await outbox.countPending(Target.MSG)).toBe(2);
    });

    it("foldSent: every reader answers the same before and after; a resend after it moves nothing back", async () => {
      const [a, b, c, d, s1] = await subject.seed([...["F1", "F2", "F3", "F4"].map((flid) => draft(Target.MSG, flid, 1)), draft(Target.SCHD, "F1", 1)]);
      await outbox.markSent([a!.eventId, s1!.eventId], T0 + 1, [{ partition: 1, offset: 10 }, { partition: 5, offset: 50 }]);
      await outbox.markDead(b!.eventId, "poison", 5);
      await outbox.recordFailure(c!.eventId, 1, T0 + 60_000, "refused");
      await outbox.markSent([d!.eventId], T0 + 2);
      const all = [a!, b!, c!, d!, s1!].map((e) => e.eventId);
      const view = async () => ({
        rows: (await outbox.get(all)).map((e) => [e.eventId, e.status, e.sentAt, e.placement ?? null, e.nextAttemptAt, e.attempts]),
        pending: ids(await outbox.pending(Target.MSG, T0 + 60_000, 10)),
        head: (await outbox.head(Target.MSG))?.eventId,
        count: await outbox.countPending(Target.MSG),
        schd: ids(await outbox.pendingSchd(10)),
        targets: await outbox.pendingTargets("KAFKA:"),
      });
      const before = await view();
      expect(before.pending).toEqual([c!.eventId]);
      expect(before.schd).toEqual([]);
      let moved = await outbox.foldSent(1);
      expect(await view()).toEqual(before);
      while (moved > 0) moved = await outbox.foldSent(1);
      expect(await outbox.foldSent(10)).toBe(0);
      expect(await view()).toEqual(before);
      await outbox.markSent([a!.eventId, b!.eventId], T0 + 3, [{ partition: 2, offset: 20 }, { partition: 2, offset: 21 }]);
      await outbox.markDead(a!.eventId, "late", 6);
      await outbox.recordFailure(d!.eventId, 3, T0, "late");
      expect(await view()).toEqual(before);
    });

    it("recordFailure: keeps the event PENDING with attempts, nextAttemptAt and lastError", async () => {
      const [a] = await subject.seed([draft(Target.MSG, "F1", 1)]);
      await outbox.recordFailure(a!.eventId, 3, T0 + 4_000, "record too large");
      const row = await one(a!.eventId);
      expect([row.status, row.attempts, row.nextAttemptAt, row.lastError]).toEqual([DeliveryStatus.PENDING, 3, T0 + 4_000, "record too large"]);
      expect(await outbox.countPending(Target.MSG)).toBe(1);
    });

    it("markDead: keeps the dead-letter row and stops blocking the target", async () => {
      const [a, b] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1)]);
      await outbox.recordFailure(a!.eventId, 4, T0 + 16_000, "refused");
      expect(await outbox.pending(Target.MSG, T0, 10)).toEqual([]);
      await outbox.markDead(a!.eventId, "refused again", 5);
      const row = await one(a!.eventId);
      expect([row.status, row.attempts, row.lastError, row.sentAt]).toEqual([DeliveryStatus.DEAD, 5, "refused again", null]);
      expect(ids(await outbox.pending(Target.MSG, T0, 10))).toEqual([b!.eventId]);
      expect((await outbox.head(Target.MSG))?.eventId).toBe(b!.eventId);
      expect(await outbox.countPending(Target.MSG)).toBe(1);
      await outbox.recordFailure(a!.eventId, 6, T0, "late");
      expect((await one(a!.eventId)).status).toBe(DeliveryStatus.DEAD);
    });

    it("pendingSchd: every PENDING schd event, due or not, oldest first, at most limit", async () => {
      const rows = await subject.seed([
        draft(Target.SCHD, "F1", 1),
        draft(Target.MSG, "F1", 1),
        draft(Target.SCHD, "F2", 1),
        draft(Target.SCHD, "F1", 2),
        draft(Target.SCHD, "F3", 1),
      ]);
      const schd = rows.filter((e) => e.target === Target.SCHD);
      await outbox.recordFailure(schd[0]!.eventId, 1, T0 + 60_000, "refused");
      await outbox.markSent([schd[1]!.eventId], T0);
      const expected = ids(schd).filter((id) => id !== schd[1]!.eventId);
      expect(ids(await outbox.pendingSchd(10))).toEqual(expected);
      expect(ids(await outbox.pendingSchd(2))).toEqual(expected.slice(0, 2));
      expect((await outbox.pendingSchd(1))[0]?.nextAttemptAt).toBe(T0 + 60_000);
    });

    it("pendingTargets: targets with PENDING events under the prefix, ascending, each once; SENT and DEAD rows do not count", async () => {
      const queue = (name: string) => `KAFKA:rmq.${name}` as Target;
      expect(await outbox.pendingTargets("KAFKA:rmq.")).toEqual([]);
      const [b1, , a1, c1] = await subject.seed([
        draft(queue("b"), "K1", 1),
        draft(queue("b"), "K2", 1),
        draft(queue("a"), "K3", 1),
        draft(queue("c"), "K4", 1),
        draft(Target.MSG, "F1", 1),
      ]);
      await outbox.recordFailure(a1!.eventId, 1, T0 + 60_000, "refused");
      await outbox.markSent([b1!.eventId], T0);
      await outbox.markDead(c1!.eventId, "poison", 5);
      expect(await outbox.pendingTargets("KAFKA:rmq.")).toEqual([queue("a"), queue("b")]);
      expect(await outbox.pendingTargets("KAFKA:rmq.b")).toEqual([queue("b")]);
      expect(await outbox.pendingTargets("KAFKA:msg")).toEqual([Target.MSG]);
      expect(await outbox.pendingTargets("KAFKA:rmq_")).toEqual([]);
    });

    it("countPending: PENDING events of the target, backoff included", async () => {
      expect(await outbox.countPending(Target.MSG)).toBe(0);
      const [a, b, c] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.MSG, "F2", 1), draft(Target.MSG, "F3", 1)]);
      await subject.seed([draft(Target.SCHD, "F1", 1)]);
      await outbox.recordFailure(a!.eventId, 1, T0 + 1_000, "x");
      await outbox.markSent([b!.eventId], T0);
      await outbox.markDead(c!.eventId, "x", 5);
      expect(await outbox.countPending(Target.MSG)).toBe(1);
      expect(await outbox.countPending(Target.SCHD)).toBe(1);
    });

    it("get: the stored rows among the ids, ascending; unknown ids absent", async () => {
      const [a, b] = await subject.seed([draft(Target.MSG, "F1", 1), draft(Target.SCHD, "F1", 1)]);
      expect(ids(await outbox.get([b!.eventId, 987_654_321, a!.eventId]))).toEqual([a!.eventId, b!.eventId]);
      expect(await outbox.get([])).toEqual([]);
    });
  });
}
