import { describe, expect, it, vi } from "vitest";
import { MsgDispatcher } from "../../src/delivery/msg-dispatcher.js";
import { DeliveryStatus, Target } from "../../src/outbox/outbox-event.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { DeliveryWorld, eventIdOf, firstDeliveries, msgDraft, schdDraft } from "./delivery-world.js";

const drafts = (n: number) => Array.from({ length: n }, (_, i) => msgDraft(`F${i % 3}`, i + 1));
const statusOf = (w: DeliveryWorld, id: number) => w.outbox.events.find((e) => e.eventId === id)!;

describe("MsgDispatcher", () => {
  it("sends the due head run in EVENT_ID order in one call and marks it sent in one call", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([msgDraft("F1", 1, { traceparent: "00-abc-def-01" }), schdDraft("F1", 1), msgDraft("F2", 1), msgDraft("F1", 2)]);
    const markSent = vi.spyOn(w.outbox, "markSent");
    const step = await w.dispatcher.step();
    // A short batch sent whole: nothing else was due, so the loop waits for the next commit's wake.
    expect(step).toEqual({ did: "sent", eventIds: [1, 3, 4], next: null });
    expect(w.broker.calls).toBe(1);
    expect(markSent).toHaveBeenCalledTimes(1);
    const placements = [0, 1, 2].map((offset) => ({ partition: 0, offset }));
    expect(markSent).toHaveBeenCalledWith([1, 3, 4], w.clock.now(), placements);
    expect([1, 3, 4].map((id) => statusOf(w, id).placement)).toEqual(placements);
    expect(statusOf(w, 2).placement ?? null).toBeNull();
    expect(w.msgRecords().map((r) => [r.key, r.value, eventIdOf(r)])).toEqual([
      ["F1", '{"flid":"F1","stateVersion":1}', 1],
      ["F2", '{"flid":"F2","stateVersion":1}', 3],
      ["F1", '{"flid":"F1","stateVersion":2}', 4],
    ]);
    expect(w.msgRecords()[0]!.headers).toEqual({
      "msgx-event-id": "1",
      "msgx-event-type": "UPSERT",
      "msgx-state-version": "1",
      "msgx-source-msg-id": "1",
      traceparent: "00-abc-def-01",
    });
    expect(statusOf(w, 2).status).toBe(DeliveryStatus.PENDING); // the schd event is not this target's
    expect(await w.dispatcher.step()).toEqual({ did: "idle", next: null });
  });

  it("sends the extra headers stored on a row with the record, beside the msgx headers", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([msgDraft("F1", 1, { headers: { "msgx-owner": "LMS", "x-tenant": "t1" } }), msgDraft("F2", 1)]);
    await w.dispatcher.step();
    expect(w.msgRecords().map((r) => r.headers)).toEqual([
      { "msgx-owner": "LMS", "x-tenant": "t1", "msgx-event-id": "1", "msgx-event-type": "UPSERT", "msgx-state-version": "1", "msgx-source-msg-id": "1" },
      { "msgx-event-id": "2", "msgx-event-type": "UPSERT", "msgx-state-version": "1", "msgx-source-msg-id": "1" },
    ]);
  });

  it("batches at most 100 events per call by default; batchSize is configurable", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(250));
    const steps: { size: number; next: number | null }[] = [];
    for (let s = await w.dispatcher.step(); s.did === "sent"; s = await w.dispatcher.step()) steps.push({ size: s.eventIds.length, next: s.next });
    // A full batch may have more behind it: call again at once. The short last one drained the target.
    expect(steps).toEqual([
      { size: 100, next: w.clock.now() },
      { size: 100, next: w.clock.now() },
      { size: 50, next: null },
    ]);
    const small = new DeliveryWorld({ batchSize: 7 });
    await small.outbox.append(drafts(10));
    expect(await small.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2, 3, 4, 5, 6, 7] });
  });

  it("pins a faulty event by resending smaller prefixes; the events ahead of it go", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(8));
    w.broker.failRecords((r) => eventIdOf(r) === 6);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2, 3, 4] }); // 8 refused, 4 ok
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [5] }); // 4, 2 refused, 1 ok
    const failed = await w.dispatcher.step(); // 3, 1 refused
    expect(failed).toMatchObject({ did: "failed", eventId: 6, attempts: 1, next: w.clock.now() + 1_000 });
    expect(w.broker.calls).toBe(2 + 3 + 2);
    expect(statusOf(w, 6)).toMatchObject({ status: "PENDING", attempts: 1, nextAttemptAt: w.clock.now() + 1_000 });
    expect(statusOf(w, 6).lastError).toContain("refused");
    expect(firstDeliveries(w.msgRecords())).toEqual([1, 2, 3, 4, 5]);
  });

  it("a failing head backs off 1, 2, 4, 8 s, blocking only its target, then goes DEAD and stops blocking", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([msgDraft("P", 1), msgDraft("F1", 1), schdDraft("F1", 1)]);
    w.broker.failRecords((r) => r.key === "P");
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const s = await w.dispatcher.step();
      expect(s).toMatchObject({ did: "failed", eventId: 1, attempts: attempt });
      if (s.did !== "failed") throw new Error("expected a failure");
      const wait = await w.dispatcher.step();
      expect(wait).toEqual({ did: "wait", eventId: 1, next: s.next });
      // The schd target is not blocked by the msg head.
      if (attempt === 1) expect(await w.flusher.step()).toMatchObject({ did: "flushed", sent: ["F1"] });
      waits.push(s.next - w.clock.now());
      w.clock.advance(s.next - w.clock.now() - 1);
      expect((await w.dispatcher.step()).did).toBe("wait");
      w.clock.advance(1);
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(await w.dispatcher.step()).toMatchObject({ did: "dead", eventId: 1, attempts: 5, next: w.clock.now() });
    expect(statusOf(w, 1)).toMatchObject({ status: DeliveryStatus.DEAD, attempts: 5 });
    expect(statusOf(w, 1).lastError).toContain("refused");
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [2] });
    expect(firstDeliveries(w.msgRecords())).toEqual([2]);
  });

  it("follows a configured retry policy", async () => {
    const w = new DeliveryWorld({ policy: { maxAttempts: 2, initialBackoffMs: 10, backoffMultiplier: 3, maxBackoffMs: 20, headDeadlineMs: 0 } });
    await w.outbox.append([msgDraft("P", 1)]);
    w.broker.failRecords(() => true);
    expect(await w.dispatcher.step()).toMatchObject({ did: "failed", attempts: 1, next: w.clock.now() + 10 });
    w.clock.advance(10);
    expect(await w.dispatcher.step()).toMatchObject({ did: "dead", attempts: 2 });
  });

  it("an outage opens the breaker: no attempt spent, nothing marked, probes with backoff", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(3));
    w.broker.faults.setDown(true);
    const t0 = w.clock.now();
    const first = await w.dispatcher.step();
    expect(first).toMatchObject({ did: "outage", next: t0 + 500 });
    expect(w.dispatcher.breaker.openedAt).toBe(t0);
    expect(await w.dispatcher.step()).toEqual({ did: "outage", error: "breaker open", next: t0 + 500 });
    expect(w.broker.calls).toBe(1);
    // Ten minutes down: probes back off to the cap and never spend an attempt.
    while (w.clock.now() < t0 + 10 * 60_000) {
      const s = await w.dispatcher.step();
      w.clock.set(Math.max(w.clock.now() + 1, s.next ?? 0));
    }
    expect(w.dispatcher.breaker.probeAt - w.clock.now()).toBeLessThanOrEqual(30_000);
    expect(w.outbox.events.every((e) => e.status === DeliveryStatus.PENDING && e.attempts === 0 && e.lastError === null)).toBe(true);
    w.broker.faults.setDown(false);
    w.clock.set(w.dispatcher.breaker.probeAt);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2, 3] });
    expect(w.dispatcher.breaker.openedAt).toBeNull();
  });

  it("a fenced producer (this process no longer leads) pauses too: no attempt spent, nothing marked DEAD", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(3));
    w.broker.faults.failNext("send", 1, "FENCED");
    expect(await w.dispatcher.step()).toMatchObject({ did: "outage" });
    expect(w.broker.calls).toBe(1);
    expect(w.outbox.events.every((e) => e.status === DeliveryStatus.PENDING && e.attempts === 0 && e.lastError === null)).toBe(true);
  });

  it("a store outage pauses the same way", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(2));
    w.store.faults.failNext("outbox.markSent", 1, "DEPENDENCY_UNAVAILABLE");
    expect(await w.dispatcher.step()).toMatchObject({ did: "outage" });
    expect(w.outbox.events.every((e) => e.status === DeliveryStatus.PENDING && e.attempts === 0)).toBe(true);
    w.clock.advance(500);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
    expect(firstDeliveries(w.msgRecords())).toEqual([1, 2]);
    expect(w.msgRecords().map(eventIdOf)).toEqual([1, 2, 1, 2]); // resent, same ids
  });

  it("an outage in the middle of pinning a fault spends no attempt either", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(4));
    w.broker.failRecords((r) => eventIdOf(r) === 1);
    const orig = w.broker.send.bind(w.broker);
    let n = 0;
    vi.spyOn(w.broker, "send").mockImplementation(async (records, signal) => {
      n += 1;
      if (n === 2) w.broker.faults.setDown(true);
      return orig(records, signal);
    });
    expect(await w.dispatcher.step()).toMatchObject({ did: "outage" }); // 4 refused, then the broker is gone
    expect(n).toBe(2);
    expect(statusOf(w, 1)).toMatchObject({ attempts: 0, status: DeliveryStatus.PENDING });
  });

  it("a lost acknowledgement leads to a resend with the same event ids, marked once", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(3));
    w.broker.loseNextAcks(1);
    expect(await w.dispatcher.step()).toMatchObject({ did: "outage" });
    w.clock.advance(500);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2, 3] });
    expect(w.msgRecords().map(eventIdOf)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(statusOf(w, 1).sentAt).toBe(w.clock.now());
  });

  it("a crash between acknowledgement and marking resends after restart", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append(drafts(2));
    w.crashAt = "dispatch.after-send";
    await expect(w.dispatcher.step()).rejects.toBeInstanceOf(SimulatedCrashMarker);
    w.restart();
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
    expect(w.msgRecords().map(eventIdOf)).toEqual([1, 2, 1, 2]);
  });

  it("a payload with no JSON form is a fault of its event; the ones ahead still go", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([msgDraft("F1", 1), msgDraft("F2", 1, { payload: { big: 1n } }), msgDraft("F3", 1)]);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1] });
    expect(await w.dispatcher.step()).toMatchObject({ did: "failed", eventId: 2, attempts: 1 });
  });

  it("uses the configured topic and refuses a target without one", async () => {
    const w = new DeliveryWorld({ topics: { [Target.MSG]: "flight-msg" } });
    await w.outbox.append(drafts(1));
    await w.dispatcher.step();
    expect(w.broker.records("flight-msg")).toHaveLength(1);
    const deps = { outbox: w.outbox, delivery: w.broker, clock: w.clock, logger: silentLogger };
    expect(() => new MsgDispatcher(deps, { target: "KAFKA:other" })).toThrow(expect.objectContaining({ kind: "CONFIG" }));
    expect(() => new MsgDispatcher(deps, { batchSize: 0 })).toThrow(RangeError);
  });

  it("drains another per-event target when told to", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([{ ...msgDraft("T1", 1), target: "KAFKA:task" }, msgDraft("F1", 1)]);
    const d = new MsgDispatcher(w.deps, { target: "KAFKA:task", topics: { "KAFKA:task": "task-events" } });
    expect(await d.step()).toMatchObject({ did: "sent", eventIds: [1] });
    expect(w.broker.records("task-events")).toHaveLength(1);
    expect(statusOf(w, 2).status).toBe(DeliveryStatus.PENDING);
  });
  describe("pipelined", () => {
    /** Records the order in which the store and the broker are entered and left. */
    function trace(w: DeliveryWorld): string[] {
      const log: string[] = [];
      const wrap = <T extends object>(obj: T, name: keyof T & string, label: string) => {
        const orig = (obj[name] as (...a: unknown[]) => Promise<unknown>).bind(obj);
        (obj as Record<string, unknown>)[name] = async (...args: unknown[]) => {
          const tag = label === "pending" && args[3] !== undefined ? `pending>${String(args[3])}` : label;
          log.push(`${tag}:start`);
          // The broker takes a moment, as a real one does: what overlaps it shows.
          if (label === "send") await new Promise((r) => setTimeout(r, 5));
          const result = await orig(...args);
          log.push(`${tag}:end`);
          return result;
        };
      };
      wrap(w.outbox, "pending", "pending");
      wrap(w.outbox, "markSent", "markSent");
      wrap(w.outbox, "markSentAndRead", "markSentAndRead");
      wrap(w.broker, "send", "send");
      return log;
    }

    it("reads the next batch while the current one is in flight, in the statement that marks the batch before it", async () => {
      const w = new DeliveryWorld({ batchSize: 2, pipelined: true });
      await w.outbox.append(drafts(5));
      const log = trace(w);
      w.restart();
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
      // The read above event 2 started before the send of 1–2 ended.
      expect(log.indexOf("pending>2:start")).toBeLessThan(log.indexOf("send:end"));
      // The mark of 1–2 is held for the read behind the next batch: nothing marked yet.
      expect(log.some((l) => l.startsWith("markSent"))).toBe(false);
      expect(statusOf(w, 2).status).toBe(DeliveryStatus.PENDING);
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [3, 4] });
      // No read from the head for the second batch: it came from the read-ahead. The read above
      // event 4 carried the mark of 1–2 and started before the send of 3–4 ended.
      expect(log.filter((l) => l === "pending:start")).toHaveLength(1);
      expect(log.indexOf("markSentAndRead:start")).toBeLessThan(log.lastIndexOf("send:end"));
      expect(log.filter((l) => l === "markSent:start")).toHaveLength(0);
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [5] });
      // The read-ahead above 4 landed (it gave this batch): so did the mark of 1–2 with it.
      expect(statusOf(w, 2).status).toBe(DeliveryStatus.SENT);
      // A short batch has nothing behind it: the held mark of 3–4 went on its own.
      expect(log.filter((l) => l === "markSent:start")).toHaveLength(2);
      expect(await w.dispatcher.step()).toEqual({ did: "idle", next: null });
      await w.dispatcher.settle();
      expect(w.outbox.events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
      expect(w.msgRecords().map(eventIdOf)).toEqual([1, 2, 3, 4, 5]);
    });

    it("pauses (DeliveryDeps.pause) after asking for the batch behind and before sending: the read leaves before the encoding", async () => {
      const w = new DeliveryWorld({ batchSize: 2, pipelined: true });
      await w.outbox.append(drafts(5));
      const log = trace(w);
      w.pause = async () => void log.push("pause");
      w.restart();
      await w.dispatcher.step();
      await w.dispatcher.step();
      await w.dispatcher.step();
      await w.dispatcher.settle();
      const starts = log.filter((l) => l.endsWith(":start") || l === "pause");
      // A read behind each full batch, then the pause, then its send; the short batch (5) reads
      // nothing behind, so the mark of 3–4 goes on its own and no pause holds up its send.
      expect(starts).toEqual(["pending:start", "pending>2:start", "pause", "send:start", "markSentAndRead:start", "pause", "send:start", "markSent:start", "send:start", "markSent:start"]);
    });

    it("settles the outstanding mark before reading from the head: nothing is sent twice", async () => {
      const w = new DeliveryWorld({ batchSize: 3, pipelined: true });
      await w.outbox.append(drafts(2));
      const orig = w.outbox.markSent.bind(w.outbox);
      // A mark that takes a while, as a database's does: the next read must wait for it.
      w.outbox.markSent = async (ids, at) => {
        await new Promise((r) => setTimeout(r, 5));
        return orig(ids, at);
      };
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
      await w.outbox.append(drafts(2));
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [3, 4] });
      expect(await w.dispatcher.step()).toEqual({ did: "idle", next: null });
      expect(w.msgRecords().map(eventIdOf)).toEqual([1, 2, 3, 4]);
    });

    it("a fault in the read-ahead batch still pins its event; nothing behind it goes first", async () => {
      const w = new DeliveryWorld({ batchSize: 2, pipelined: true });
      await w.outbox.append(drafts(6));
      w.broker.failRecords((r) => eventIdOf(r) === 3);
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
      expect(await w.dispatcher.step()).toMatchObject({ did: "failed", eventId: 3, attempts: 1 });
      expect(statusOf(w, 2).status).toBe(DeliveryStatus.SENT); // the outstanding mark landed first
      expect(await w.dispatcher.step()).toMatchObject({ did: "wait", eventId: 3 });
      expect(firstDeliveries(w.msgRecords())).toEqual([1, 2]);
    });

    it("a failed mark surfaces as an outage once a step waits for it; the events are resent, none lost", async () => {
      const w = new DeliveryWorld({ batchSize: 2, pipelined: true });
      await w.outbox.append(drafts(3));
      w.store.faults.failNext("outbox.markSent", 1, "DEPENDENCY_UNAVAILABLE");
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
      // The second mark may be on its way beside the first, so event 3 still goes.
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [3] });
      // Reading from the head waits for both marks first.
      expect(await w.dispatcher.step()).toMatchObject({ did: "outage" });
      w.clock.advance(60_000);
      for (let s = await w.dispatcher.step(); s.did !== "idle"; s = await w.dispatcher.step());
      expect(w.outbox.events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
      expect(firstDeliveries(w.msgRecords())).toEqual([1, 2, 3]);
    });

    it("a failed mark-and-read surfaces as an outage once a step waits for it; the events are resent, none lost", async () => {
      const w = new DeliveryWorld({ batchSize: 2, pipelined: true });
      await w.outbox.append(drafts(7));
      w.store.faults.failNext("outbox.markSentAndRead", 1, "DEPENDENCY_UNAVAILABLE");
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
      // The read behind 3–4 (carrying the mark of 1–2) fails while 3–4 is sent.
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [3, 4] });
      // No read-ahead: the next step reads from the head, after waiting for the lost mark.
      expect(await w.dispatcher.step()).toMatchObject({ did: "outage" });
      expect(statusOf(w, 1).status).toBe(DeliveryStatus.PENDING);
      w.clock.advance(60_000);
      for (let s = await w.dispatcher.step(); s.did !== "idle"; s = await w.dispatcher.step());
      await w.dispatcher.settle();
      expect(w.outbox.events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
      expect(firstDeliveries(w.msgRecords())).toEqual([1, 2, 3, 4, 5, 6, 7]);
      // 1–2 were resent (their mark was lost); 3–4's mark landed with the settle of the outage step.
      expect(w.msgRecords().map(eventIdOf).filter((id) => id <= 2)).toEqual([1, 2, 1, 2]);
    });

    it("a mark is on its way for one step at most: the next step waits for the read that carries it", async () => {
      const w = new DeliveryWorld({ batchSize: 2, pipelined: true });
      await w.outbox.append(drafts(7));
      const held: (() => void)[] = [];
      const orig = w.outbox.markSentAndRead.bind(w.outbox);
      w.outbox.markSentAndRead = async (...args) => {
        await new Promise<void>((r) => held.push(r));
        return orig(...args);
      };
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2] });
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [3, 4] });
      expect(held).toHaveLength(1);
      let third = false;
      const step = w.dispatcher.step().then((s) => ((third = true), s));
      await new Promise((r) => setTimeout(r, 10));
      // Batch 5–6 is not sent before the mark of 1–2 (carried by the read that found it) landed.
      expect(w.msgRecords().map(eventIdOf)).toEqual([1, 2, 3, 4]);
      expect(third).toBe(false);
      held[0]!();
      expect(await step).toMatchObject({ did: "sent", eventIds: [5, 6] });
      expect(statusOf(w, 2).status).toBe(DeliveryStatus.SENT);
      expect(statusOf(w, 3).status).toBe(DeliveryStatus.PENDING);
      expect(held).toHaveLength(2);
      held[1]!();
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [7] });
      await w.dispatcher.settle();
      expect(w.outbox.events.filter((e) => e.status === DeliveryStatus.SENT).map((e) => e.eventId)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it("settle() lands the last mark", async () => {
      const w = new DeliveryWorld({ batchSize: 10, pipelined: true });
      await w.outbox.append(drafts(3));
      let release!: () => void;
      const orig = w.outbox.markSent.bind(w.outbox);
      w.outbox.markSent = async (ids, at) => {
        await new Promise<void>((r) => (release = r));
        return orig(ids, at);
      };
      expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1, 2, 3] });
      expect(statusOf(w, 1).status).toBe(DeliveryStatus.PENDING);
      const settled = w.dispatcher.settle();
      release();
      await settled;
      expect(statusOf(w, 1).status).toBe(DeliveryStatus.SENT);
    });
  });
});
