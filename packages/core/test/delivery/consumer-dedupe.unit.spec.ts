import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConsumerDedupe, type DedupeInput } from "../../src/delivery/consumer-dedupe.js";

const rec = (eventId: number, key: string, stateVersion: number): DedupeInput => ({ eventId, key, stateVersion });

describe("ConsumerDedupe", () => {
  it("accepts new events, drops a resent event id as duplicate and an older version as stale", () => {
    const d = new ConsumerDedupe();
    expect(d.check(rec(1, "F1", 1))).toEqual({ accept: true });
    expect(d.check(rec(2, "F1", 2))).toEqual({ accept: true });
    expect(d.check(rec(1, "F1", 1))).toEqual({ accept: false, reason: "duplicate" });
    expect(d.check(rec(2, "F1", 2))).toEqual({ accept: false, reason: "duplicate" });
    expect(d.check(rec(3, "F2", 1))).toEqual({ accept: true });
    expect(d.newestVersion("F1")).toBe(2);
  });

  it("treats an equal state version under a new event id as stale", () => {
    const d = new ConsumerDedupe();
    d.check(rec(10, "F1", 5));
    expect(d.check(rec(11, "F1", 5))).toEqual({ accept: false, reason: "stale" });
    expect(d.check(rec(9, "F1", 4))).toEqual({ accept: false, reason: "stale" });
    expect(d.check(rec(12, "F1", 6))).toEqual({ accept: true });
  });

  it("does not remember stale records: their ids can still be judged later", () => {
    const d = new ConsumerDedupe();
    d.check(rec(2, "F1", 2));
    expect(d.check(rec(1, "F1", 1)).reason).toBe("stale");
    expect(d.check(rec(1, "F1", 1)).reason).toBe("stale");
    expect(d.size).toEqual({ eventIds: 1, keys: 1 });
  });

  it("event ids are compared as strings, so header text and numbers agree", () => {
    const d = new ConsumerDedupe();
    d.check({ eventId: "42", key: "F1", stateVersion: 1 });
    expect(d.check({ eventId: 42, key: "F2", stateVersion: 1 }).reason).toBe("duplicate");
  });

  it("keeps memory bounded and still catches an evicted duplicate as stale", () => {
    const d = new ConsumerDedupe({ maxEventIds: 3, maxKeys: 100 });
    for (let i = 1; i <= 10; i++) d.check(rec(i, "F1", i));
    expect(d.size).toEqual({ eventIds: 3, keys: 1 });
    expect(d.check(rec(1, "F1", 1))).toEqual({ accept: false, reason: "stale" });
    expect(d.check(rec(10, "F1", 10))).toEqual({ accept: false, reason: "duplicate" });
  });

  it("evicts the least recently used key first", () => {
    const d = new ConsumerDedupe({ maxKeys: 2 });
    d.check(rec(1, "A", 1));
    d.check(rec(2, "B", 1));
    d.check(rec(3, "A", 2)); // A is now the youngest
    d.check(rec(4, "C", 1)); // evicts B
    expect(d.newestVersion("A")).toBe(2);
    expect(d.newestVersion("B")).toBeUndefined();
    expect(d.newestVersion("C")).toBe(1);
  });

  it("refuses bad windows and non-finite versions", () => {
    expect(() => new ConsumerDedupe({ maxEventIds: 0 })).toThrow(RangeError);
    expect(() => new ConsumerDedupe({ maxKeys: 1.5 })).toThrow(RangeError);
    expect(() => new ConsumerDedupe().check(rec(1, "F1", Number.NaN))).toThrow(RangeError);
  });

  // Events per key with strictly increasing versions and unique ids; each delivered 1..3 times.
  const deliveries = fc
    .array(fc.tuple(fc.constantFrom("F1", "F2", "F3", "F4"), fc.integer({ min: 1, max: 3 })), { maxLength: 60 })
    .chain((events) => {
      const nextVersion = new Map<string, number>();
      const all: DedupeInput[] = [];
      events.forEach(([key, copies], i) => {
        const v = (nextVersion.get(key) ?? 0) + 1 + (i % 3); // gaps, like merged schd records
        nextVersion.set(key, v);
        for (let c = 0; c < copies; c++) all.push(rec(1000 + i, key, v));
      });
      return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
    });

  it("property: any shuffle with duplicates → per-key accepted versions strictly increase, each id accepted at most once, newest always wins", () => {
    fc.assert(
      fc.property(deliveries, fc.integer({ min: 1, max: 200 }), (delivered, idWindow) => {
        const d = new ConsumerDedupe({ maxEventIds: idWindow });
        const accepted = new Set<string>();
        const lastAccepted = new Map<string, number>();
        for (const r of delivered) {
          const verdict = d.check(r);
          if (!verdict.accept) continue;
          const id = String(r.eventId);
          expect(accepted.has(id)).toBe(false);
          accepted.add(id);
          const last = lastAccepted.get(r.key);
          if (last !== undefined) expect(r.stateVersion).toBeGreaterThan(last);
          lastAccepted.set(r.key, r.stateVersion);
          expect(d.size.eventIds).toBeLessThanOrEqual(idWindow);
        }
        for (const key of new Set(delivered.map((r) => r.key))) {
          const newest = Math.max(...delivered.filter((r) => r.key === key).map((r) => r.stateVersion));
          expect(lastAccepted.get(key)).toBe(newest);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("property: in-order delivery without copies is accepted whole", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("F1", "F2", "F3"), { maxLength: 50 }), (keys) => {
        const d = new ConsumerDedupe();
        const version = new Map<string, number>();
        keys.forEach((key, i) => {
          const v = (version.get(key) ?? 0) + 1;
          version.set(key, v);
          expect(d.check(rec(i, key, v)).accept).toBe(true);
        });
      }),
    );
  });
});
