import { describe, expect, it, vi } from "vitest";
import { DeliveryStatus } from "../../src/outbox/outbox-event.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { DeliveryWorld, eventIdOf, msgDraft, schdDraft, versionOf } from "./delivery-world.js";

const row = (w: DeliveryWorld, id: number) => w.outbox.events.find((e) => e.eventId === id)!;
const sentKeys = (w: DeliveryWorld) => w.schdRecords().map((r) => `${r.key}@${versionOf(r)}`);

describe("SchdFlusher", () => {
  it("merges per FLID: one record per FLID with the newest state; every represented event marked in one call", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("F1", 1), schdDraft("F2", 1), schdDraft("F1", 2), msgDraft("F1", 2), schdDraft("F1", 3)]);
    const markSent = vi.spyOn(w.outbox, "markSent");
    const step = await w.flusher.step();
    expect(step).toEqual({ did: "flushed", sent: ["F1", "F2"], markedSent: [1, 3, 5, 2], failed: [], dead: [], next: w.clock.now() + 3_000 });
    expect(w.broker.calls).toBe(1);
    expect(markSent).toHaveBeenCalledTimes(1);
    expect(w.schdRecords().map((r) => [r.key, r.value, eventIdOf(r)])).toEqual([
      ["F1", '{"flid":"F1","stateVersion":3,"state":"s3"}', 5],
      ["F2", '{"flid":"F2","stateVersion":1,"state":"s1"}', 2],
    ]);
    expect([1, 2, 3, 5].map((id) => row(w, id).status)).toEqual(Array(4).fill(DeliveryStatus.SENT));
    // Each record's placement goes to the event it carries; the events it superseded get none.
    expect([5, 2, 1, 3].map((id) => row(w, id).placement)).toEqual([{ partition: 0, offset: 0 }, { partition: 0, offset: 1 }, null, null]);
    expect(row(w, 4).status).toBe(DeliveryStatus.PENDING); // KAFKA:msg is the dispatcher's
    expect(await w.flusher.step()).toEqual({ did: "idle", next: null });
  });

  it("sends a tombstone as a null value", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("F1", 1), schdDraft("F1", 2, true)]);
    await w.flusher.step();
    expect(w.schdRecords()).toHaveLength(1);
    expect(w.schdRecords()[0]).toMatchObject({ key: "F1", value: null, headers: { "msgx-event-type": "TOMBSTONE", "msgx-state-version": "2" } });
  });

  it("flushes at once when fresh, then every 3 s", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("F1", 1)]);
    const t0 = w.clock.now();
    expect((await w.flusher.step()).did).toBe("flushed");
    await w.outbox.append([schdDraft("F1", 2)]);
    w.clock.advance(2_999);
    expect(await w.flusher.step()).toEqual({ did: "wait", next: t0 + 3_000 });
    w.clock.advance(1);
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["F1"] });
    expect(sentKeys(w)).toEqual(["F1@1", "F1@2"]);
  });

  it("flushes early at 500 pending (configurable)", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("X", 1)]);
    await w.flusher.step();
    await w.outbox.append(Array.from({ length: 499 }, (_, i) => schdDraft(`F${i}`, 1)));
    w.clock.advance(10);
    expect((await w.flusher.step()).did).toBe("wait");
    await w.outbox.append([schdDraft("F499", 1)]);
    expect(await w.flusher.step()).toMatchObject({ did: "flushed" });
    expect(w.schdRecords()).toHaveLength(501);

    const small = new DeliveryWorld({}, { flushAt: 2, intervalMs: 60_000 });
    await small.outbox.append([schdDraft("A", 1)]);
    await small.flusher.step();
    await small.outbox.append([schdDraft("A", 2)]);
    expect((await small.flusher.step()).did).toBe("wait");
    await small.outbox.append([schdDraft("B", 1)]);
    expect((await small.flusher.step()).did).toBe("flushed");
  });

  it("reads at most batchLimit events per flush and asks to go again at once when the window was full", async () => {
    const w = new DeliveryWorld({}, { batchLimit: 4 });
    await w.outbox.append([schdDraft("A", 1), schdDraft("B", 1), schdDraft("A", 2), schdDraft("C", 1), schdDraft("A", 3), schdDraft("D", 1)]);
    const first = await w.flusher.step();
    expect(first).toMatchObject({ did: "flushed", sent: ["A", "B", "C"], markedSent: [1, 3, 2, 4], next: w.clock.now() });
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["A", "D"], next: w.clock.now() + 3_000 });
    expect(sentKeys(w)).toEqual(["A@2", "B@1", "C@1", "A@3", "D@1"]);
  });

  it("a failing FLID backs off alone; a newer event joins its backoff; after 5 attempts all its events go DEAD", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("P", 1), schdDraft("F1", 1), schdDraft("P", 2)]);
    const heal = w.broker.failRecords((r) => r.key === "P");
    const first = await w.flusher.step();
    expect(first).toMatchObject({ did: "flushed", sent: ["F1"], failed: [{ flid: "P", eventIds: [1, 3], attempts: 1 }], dead: [] });
    expect([row(w, 1), row(w, 3)].map((e) => [e.attempts, e.nextAttemptAt])).toEqual([
      [1, w.clock.now() + 1_000],
      [1, w.clock.now() + 1_000],
    ]);
    // A newer version arrives while P backs off: it waits with P (no send before due).
    await w.outbox.append([schdDraft("P", 3), schdDraft("F2", 1)]);
    w.clock.advance(500);
    expect(await w.flusher.step()).toMatchObject({ did: "wait" });
    w.clock.advance(2_500);
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["F2"], failed: [{ flid: "P", eventIds: [1, 3, 4], attempts: 2 }] });
    for (const attempts of [3, 4]) {
      w.clock.advance(10_000);
      expect(await w.flusher.step()).toMatchObject({ failed: [{ flid: "P", attempts }] });
    }
    w.clock.advance(10_000);
    expect(await w.flusher.step()).toMatchObject({ failed: [], dead: [{ flid: "P", eventIds: [1, 3, 4], attempts: 5 }] });
    expect([1, 3, 4].map((id) => row(w, id).status)).toEqual(Array(3).fill(DeliveryStatus.DEAD));
    expect(row(w, 4).lastError).toContain("refused");
    expect(row(w, 1).lastError).toMatch(/^superseded by event 4: /);
    expect(w.schdRecords().filter((r) => r.key === "P")).toEqual([]);
    // The key is free again: a new version goes out.
    heal();
    await w.outbox.append([schdDraft("P", 4)]);
    w.clock.advance(3_000);
    expect(await w.flusher.step()).toMatchObject({ sent: ["P"] });
    expect(sentKeys(w)).toEqual(["F1@1", "F2@1", "P@4"]);
  });

  it("a FLID in backoff is skipped by flushes until it is due", async () => {
    const w = new DeliveryWorld({}, { policy: { maxAttempts: 5, initialBackoffMs: 10_000, backoffMultiplier: 2, maxBackoffMs: 60_000, headDeadlineMs: 0 } });
    await w.outbox.append([schdDraft("P", 1)]);
    w.broker.failRecords((r) => r.key === "P");
    expect(await w.flusher.step()).toMatchObject({ failed: [{ flid: "P", attempts: 1 }] });
    await w.outbox.append([schdDraft("A", 1)]);
    w.clock.advance(3_000);
    const calls = w.broker.calls;
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["A"], failed: [] });
    expect(w.broker.calls).toBe(calls + 1);
    w.clock.advance(7_000);
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: [], failed: [{ flid: "P", attempts: 2 }] });
  });

  it("an outage opens the breaker, spends no attempt, and the flush happens at the probe", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("A", 1), schdDraft("B", 1)]);
    w.broker.faults.setDown(true);
    for (let i = 0; i < 40; i++) {
      const s = await w.flusher.step();
      expect(s.did).toBe("outage");
      w.clock.set(Math.max(w.clock.now() + 1, s.next ?? 0));
    }
    expect(w.outbox.events.every((e) => e.attempts === 0 && e.status === DeliveryStatus.PENDING)).toBe(true);
    expect(w.flusher.lastFlushAt).toBeNull();
    w.broker.faults.setDown(false);
    w.clock.set(w.flusher.breaker.probeAt);
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["A", "B"] });
    expect(w.flusher.breaker.openedAt).toBeNull();
  });

  it("a lost acknowledgement resends; a newer version supersedes; versions never go down", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("A", 1), schdDraft("A", 2)]);
    w.broker.loseNextAcks(1);
    expect((await w.flusher.step()).did).toBe("outage");
    await w.outbox.append([schdDraft("A", 3)]);
    w.clock.advance(500);
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", markedSent: [1, 2, 3] });
    expect(sentKeys(w)).toEqual(["A@2", "A@3"]);
  });

  it("a crash between acknowledgement and marking resends after restart", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([schdDraft("A", 1)]);
    w.crashAt = "schd.after-send";
    await expect(w.flusher.step()).rejects.toBeInstanceOf(SimulatedCrashMarker);
    w.restart();
    expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["A"] });
    expect(w.schdRecords().map(eventIdOf)).toEqual([1, 1]);
  });

  it("refuses a configuration without a schd topic", () => {
    expect(() => new DeliveryWorld({}, { topics: { "KAFKA:msg": "msg" } })).toThrow(expect.objectContaining({ kind: "CONFIG" }));
  });
});
