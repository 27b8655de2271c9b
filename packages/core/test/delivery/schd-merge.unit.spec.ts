import { describe, expect, it } from "vitest";
import { mergeSchd } from "../../src/delivery/schd-merge.js";
import { DEFAULT_SCHD_FLUSH_POLICY, shouldFlush } from "../../src/delivery/schd-flush-decision.js";
import { DeliveryStatus, EventType, Target, type OutboxEvent } from "../../src/outbox/outbox-event.js";

let nextId = 1;
const ev = (flid: string, stateVersion: number, extra: Partial<OutboxEvent> = {}): OutboxEvent => ({
  eventId: nextId++,
  target: Target.SCHD,
  partitionKey: flid,
  eventType: EventType.UPSERT,
  stateVersion,
  payload: { flid, stateVersion },
  sourceMsgId: 1,
  traceparent: null,
  status: DeliveryStatus.PENDING,
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  createdAt: 0,
  sentAt: null,
  ...extra,
});

describe("mergeSchd", () => {
  it("keeps the newest stateVersion per FLID; it represents every event of the FLID", () => {
    const a1 = ev("A", 1);
    const b1 = ev("B", 4);
    const a2 = ev("A", 2);
    const a3 = ev("A", 3, { eventType: EventType.TOMBSTONE, payload: null });
    const groups = mergeSchd([a1, b1, a2, a3]);
    expect(groups.map((g) => [g.flid, g.newest.eventId, g.represented.map((e) => e.eventId)])).toEqual([
      ["A", a3.eventId, [a1.eventId, a2.eventId, a3.eventId]],
      ["B", b1.eventId, [b1.eventId]],
    ]);
  });

  it("orders groups by their oldest event and reads events in any order", () => {
    const b1 = ev("B", 1);
    const a1 = ev("A", 1);
    const b2 = ev("B", 2);
    const groups = mergeSchd([b2, a1, b1]);
    expect(groups.map((g) => g.flid)).toEqual(["B", "A"]);
    expect(groups[0]!.represented.map((e) => e.eventId)).toEqual([b1.eventId, b2.eventId]);
  });

  it("picks by stateVersion, not by id; a tie goes to the later event", () => {
    const hi = ev("A", 9);
    const lo = ev("A", 5);
    expect(mergeSchd([hi, lo])[0]!.newest).toBe(hi);
    const tie = ev("A", 9);
    expect(mergeSchd([hi, lo, tie])[0]!.newest).toBe(tie);
  });

  it("a FLID's backoff is the most attempts and the latest nextAttemptAt among its events", () => {
    const a1 = ev("A", 1, { attempts: 2, nextAttemptAt: 5_000 });
    const a2 = ev("A", 2);
    const b1 = ev("B", 1);
    const [a, b] = mergeSchd([a1, a2, b1]);
    expect([a!.attempts, a!.nextAttemptAt]).toEqual([2, 5_000]);
    expect([b!.attempts, b!.nextAttemptAt]).toEqual([0, null]);
  });

  it("nothing in, nothing out", () => {
    expect(mergeSchd([])).toEqual([]);
  });
});

describe("shouldFlush", () => {
  const p = DEFAULT_SCHD_FLUSH_POLICY;
  it("defaults: every 3 s or at 500 pending", () => {
    expect(p).toEqual({ intervalMs: 3_000, flushAt: 500 });
  });
  it.each([
    ["nothing pending", { now: 10_000, lastFlushAt: null, pending: 0 }, false],
    ["first flush of a process", { now: 10_000, lastFlushAt: null, pending: 1 }, true],
    ["interval not yet passed", { now: 12_999, lastFlushAt: 10_000, pending: 499 }, false],
    ["interval passed", { now: 13_000, lastFlushAt: 10_000, pending: 1 }, true],
    ["threshold reached early", { now: 10_001, lastFlushAt: 10_000, pending: 500 }, true],
    ["draining a backlog", { now: 10_001, lastFlushAt: 10_000, pending: 1, backlog: true }, true],
    ["nothing pending after the interval", { now: 99_000, lastFlushAt: 10_000, pending: 0 }, false],
  ] as const)("%s", (_name, input, expected) => {
    expect(shouldFlush(input, p)).toBe(expected);
  });
  it("follows a configured policy", () => {
    expect(shouldFlush({ now: 1_000, lastFlushAt: 0, pending: 3 }, { intervalMs: 500, flushAt: 10 })).toBe(true);
    expect(shouldFlush({ now: 100, lastFlushAt: 0, pending: 3 }, { intervalMs: 500, flushAt: 3 })).toBe(true);
    expect(shouldFlush({ now: 100, lastFlushAt: 0, pending: 2 }, { intervalMs: 500, flushAt: 3 })).toBe(false);
  });
});
