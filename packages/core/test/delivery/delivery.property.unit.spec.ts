/**
 * Delivery under faults (SPEC §2.4, §5 "Outages"): random interleavings of new events, broker and
 * database outages of random length (up to 15 minutes, far past the 5-attempt retry budget), lost
 * acknowledgements, clock moves, dispatcher and flusher steps, and crashes (a new dispatcher and
 * flusher over the same store, also right between acknowledgement and marking) — then the run is
 * settled and what a consumer saw on the broker is compared with the outbox.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { EventHeader } from "../../src/outbox/event-headers.js";
import { DeliveryStatus, EventType, Target, type OutboxEvent, type OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import type { BrokerRecord } from "../../src/ports/in-memory-broker.js";
import { DeliveryWorld, eventIdOf, firstDeliveries, versionOf } from "./delivery-world.js";

const NUM_RUNS = 300;
const runs = { faults: 0, msgPoison: 0, schdPoison: 0 };
/** What the fault runs covered, reported at the end (a property that exercises nothing proves nothing). */
const covered = { events: 0, msgResent: 0, schdResent: 0, schdMerged: 0, crashes: 0, longOutages: 0 };

type Cmd =
  | { readonly t: "events"; readonly list: readonly { readonly schd: boolean; readonly flid: number; readonly tombstone: boolean }[] }
  | { readonly t: "dispatch" }
  | { readonly t: "flush" }
  | { readonly t: "advance"; readonly ms: number }
  | { readonly t: "brokerOutage"; readonly ms: number }
  | { readonly t: "storeOutage"; readonly ms: number }
  | { readonly t: "loseAcks"; readonly n: number }
  | { readonly t: "crash" }
  | { readonly t: "crashAfterSend"; readonly at: "dispatch.after-send" | "schd.after-send" };

const eventsArb = fc.record({
  t: fc.constant("events" as const),
  list: fc.array(
    fc.record({ schd: fc.boolean(), flid: fc.integer({ min: 0, max: 4 }), tombstone: fc.integer({ min: 0, max: 5 }).map((n) => n === 0) }),
    { minLength: 1, maxLength: 8 },
  ),
});
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 4, arbitrary: eventsArb },
  { weight: 4, arbitrary: fc.constant({ t: "dispatch" as const }) },
  { weight: 4, arbitrary: fc.constant({ t: "flush" as const }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("brokerOutage" as const), ms: fc.integer({ min: 1, max: 15 * 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("storeOutage" as const), ms: fc.integer({ min: 1, max: 5 * 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("loseAcks" as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ t: "crash" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("crashAfterSend" as const), at: fc.constantFrom("dispatch.after-send" as const, "schd.after-send" as const) }),
  },
);
const configArb = fc.record({
  batchSize: fc.integer({ min: 1, max: 6 }),
  batchLimit: fc.integer({ min: 1, max: 8 }),
  flushAt: fc.integer({ min: 1, max: 10 }),
  pipelined: fc.boolean(),
});

/** The world plus outages that end by the clock, and the versions each FLID has reached. */
class FaultyWorld extends DeliveryWorld {
  brokerDownUntil = 0;
  storeDownUntil = 0;
  readonly versions = new Map<string, number>();
  crashes = 0;

  tick(): void {
    const now = this.clock.now();
    this.broker.faults.setDown(now < this.brokerDownUntil);
    this.store.faults.setDown(now < this.storeDownUntil);
  }

  draft(target: Target, flid: string, tombstone: boolean, extra: Partial<OutboxEventDraft> = {}): OutboxEventDraft {
    const key = `${target}|${flid}`;
    const stateVersion = (this.versions.get(key) ?? 0) + 1;
    this.versions.set(key, stateVersion);
    const eventType = tombstone ? EventType.TOMBSTONE : EventType.UPSERT;
    const payload = target === Target.SCHD && tombstone ? null : { flid, stateVersion, eventType };
    return { target, partitionKey: flid, eventType, stateVersion, payload, sourceMsgId: stateVersion, traceparent: null, ...extra };
  }

  /** One driver step; a simulated crash restarts the drivers (as the runner's supervisor would). */
  async step(which: "dispatch" | "flush"): Promise<number | null> {
    this.tick();
    try {
      const r = which === "dispatch" ? await this.dispatcher.step() : await this.flusher.step();
      return r.next;
    } catch (e) {
      if (!(e instanceof SimulatedCrashMarker)) throw e;
      this.crashes += 1;
      this.restart();
      return this.clock.now();
    }
  }

  /** Appends while the database may be down: the pipeline would retry its commit later. */
  async append(drafts: readonly OutboxEventDraft[]): Promise<void> {
    const down = this.store.faults.down;
    this.store.faults.setDown(false);
    await this.outbox.append(drafts);
    this.store.faults.setDown(down);
  }

  async run(cmd: Cmd): Promise<void> {
    switch (cmd.t) {
      case "events":
        return this.append(cmd.list.map((e) => this.draft(e.schd ? Target.SCHD : Target.MSG, `F${e.flid}`, e.tombstone)));
      case "dispatch":
      case "flush":
        await this.step(cmd.t);
        return;
      case "advance":
        return this.clock.advance(cmd.ms);
      case "brokerOutage":
        this.brokerDownUntil = Math.max(this.brokerDownUntil, this.clock.now() + cmd.ms);
        return;
      case "storeOutage":
        this.storeDownUntil = Math.max(this.storeDownUntil, this.clock.now() + cmd.ms);
        return;
      case "loseAcks":
        return this.broker.loseNextAcks(cmd.n);
      case "crash":
        return this.restart();
      case "crashAfterSend":
        this.crashAt = cmd.at;
        return;
    }
  }

  /** Steps both drivers, moving the clock to the earliest `next`, until nothing is pending. */
  async settle(check: () => void = () => {}): Promise<void> {
    for (let i = 0; i < 20_000; i++) {
      const d = await this.step("dispatch");
      check();
      const f = await this.step("flush");
      check();
      const nexts = [d, f].filter((n): n is number => n !== null);
      if (nexts.length === 0) {
        if ((await this.outbox.countPending(Target.MSG)) + (await this.outbox.countPending(Target.SCHD)) === 0) return;
        continue;
      }
      const at = Math.min(...nexts);
      if (at > this.clock.now()) this.clock.set(at);
    }
    throw new Error("delivery did not settle");
  }
}

const byId = (events: readonly OutboxEvent[]) => new Map(events.map((e) => [e.eventId, e]));
const expectedValue = (e: OutboxEvent): string | null =>
  e.target === Target.SCHD && e.eventType === EventType.TOMBSTONE ? null : e.payload === null ? null : JSON.stringify(e.payload);

/** Every record carries its event's value and headers; duplicates are resends of the same id. */
function expectRecordsMatch(records: readonly BrokerRecord[], events: ReadonlyMap<number, OutboxEvent>): void {
  for (const r of records) {
    const e = events.get(eventIdOf(r));
    expect(e, `record ${r.offset} names an unknown event`).toBeDefined();
    expect(r.key).toBe(e!.partitionKey);
    expect(r.value).toBe(expectedValue(e!));
    expect(r.headers[EventHeader.STATE_VERSION]).toBe(String(e!.stateVersion));
  }
}

const firstOccurrences = (records: readonly BrokerRecord[]): BrokerRecord[] => {
  const seen = new Set<number>();
  return records.filter((r) => !seen.has(eventIdOf(r)) && seen.add(eventIdOf(r)) !== undefined);
};

/** Per key, the versions a consumer sees never go down. */
function expectVersionsNeverGoDown(records: readonly BrokerRecord[]): void {
  const last = new Map<string, number>();
  for (const r of records) {
    const v = versionOf(r);
    expect(v, `key ${r.key} went from version ${last.get(r.key)} to ${v}`).toBeGreaterThanOrEqual(last.get(r.key) ?? 0);
    last.set(r.key, v);
  }
}

/** The last record of each FLID is its newest schd event; every schd FLID was delivered. */
function expectLatestStatePerFlid(records: readonly BrokerRecord[], schd: readonly OutboxEvent[]): void {
  const newest = new Map<string, OutboxEvent>();
  for (const e of schd) if ((newest.get(e.partitionKey)?.stateVersion ?? -1) < e.stateVersion) newest.set(e.partitionKey, e);
  const lastRecord = new Map(records.map((r) => [r.key, r]));
  expect([...lastRecord.keys()].sort()).toEqual([...newest.keys()].sort());
  for (const [flid, e] of newest) {
    const r = lastRecord.get(flid)!;
    expect(eventIdOf(r)).toBe(e.eventId);
    expect(r.value).toBe(expectedValue(e));
  }
}

/**
 * Whatever crashed or lost its ack, every SENT event's placement is a record on the broker that
 * carries it (a resend's copy when the first mark was lost): the broker's one partition, the
 * record's offset, its event id.
 */
function expectPlacementsNameTheirRecords(records: readonly BrokerRecord[], events: readonly OutboxEvent[]): void {
  for (const e of events) {
    expect(e.placement, `event ${e.eventId}`).toMatchObject({ partition: 0 });
    expect(eventIdOf(records[e.placement!.offset]!), `event ${e.eventId}'s placement`).toBe(e.eventId);
  }
}

describe("delivery properties", () => {
  it.prop([configArb, fc.array(cmdArb, { minLength: 10, maxLength: 80, size: "medium" })], { numRuns: NUM_RUNS })(
    "outages, lost acks and crashes: every event delivered, msg in EVENT_ID order, schd versions never down, nothing DEAD, no attempt spent",
    async (config, cmds) => {
      runs.faults += 1;
      const w = new FaultyWorld({ batchSize: config.batchSize, pipelined: config.pipelined }, { batchLimit: config.batchLimit, flushAt: config.flushAt });
      for (const cmd of cmds) await w.run(cmd);
      await w.settle();

      const events = w.outbox.events;
      covered.events += events.length;
      covered.msgResent += w.msgRecords().length - new Set(w.msgRecords().map(eventIdOf)).size;
      covered.schdResent += w.schdRecords().length - new Set(w.schdRecords().map(eventIdOf)).size;
      covered.schdMerged += events.filter((e) => e.target === Target.SCHD).length - new Set(w.schdRecords().map(eventIdOf)).size;
      covered.crashes += w.crashes + cmds.filter((c) => c.t === "crash").length;
      covered.longOutages += cmds.filter((c) => c.t === "brokerOutage" && c.ms > 31_000).length;
      expect(events.filter((e) => e.status !== DeliveryStatus.SENT)).toEqual([]);
      expect(events.filter((e) => e.attempts !== 0 || e.lastError !== null)).toEqual([]);
      const msg = events.filter((e) => e.target === Target.MSG);
      const schd = events.filter((e) => e.target === Target.SCHD);
      // At least once, and first delivery in EVENT_ID order: duplicates are only resends.
      expect(firstDeliveries(w.msgRecords())).toEqual(msg.map((e) => e.eventId));
      expectRecordsMatch(w.msgRecords(), byId(msg));
      // A resend repeats older records; a consumer deduping on the event id sees versions rise.
      expectVersionsNeverGoDown(firstOccurrences(w.msgRecords()));
      // schd: newest state per FLID last, versions never down, every event represented.
      expectRecordsMatch(w.schdRecords(), byId(schd));
      expectVersionsNeverGoDown(w.schdRecords());
      expectLatestStatePerFlid(w.schdRecords(), schd);
      expectPlacementsNameTheirRecords(w.msgRecords(), msg);
      // schd: the event of each FLID's last record has one; events a merge superseded may have none.
      const lastOfFlid = new Set(new Map(w.schdRecords().map((r) => [r.key, eventIdOf(r)])).values());
      expectPlacementsNameTheirRecords(w.schdRecords(), schd.filter((e) => e.placement || lastOfFlid.has(e.eventId)));
    },
  );

  it.prop(
    [
      fc.integer({ min: 1, max: 25 }),
      fc.nat(),
      fc.integer({ min: 1, max: 10 }),
      fc.array(cmdArb.filter((c) => c.t !== "events"), { minLength: 5, maxLength: 40, size: "medium" }),
      fc.boolean(),
    ],
    { numRuns: NUM_RUNS },
  )("a poison msg event goes DEAD after exactly 5 attempts, outages spend none, and only then stops blocking", async (n, p, batchSize, cmds, pipelined) => {
    runs.msgPoison += 1;
    const w = new FaultyWorld({ batchSize, pipelined });
    const poison = p % n;
    const rows = await w.outbox.append(Array.from({ length: n }, (_, i) => w.draft(Target.MSG, `F${i % 4}`, false)));
    const poisonId = rows[poison]!.eventId;
    w.broker.failRecords((r) => r.topic === "msg" && eventIdOf(r) === poisonId);
    let firstFailureAt: number | null = null;
    let deadAt: number | null = null;
    const check = (): void => {
      const row = w.outbox.events.find((e) => e.eventId === poisonId)!;
      if (row.attempts > 0 && firstFailureAt === null) firstFailureAt = w.clock.now();
      if (row.status === DeliveryStatus.DEAD && deadAt === null) deadAt = w.clock.now();
      // While it is not DEAD, nothing behind it is delivered (it blocks its own target).
      if (row.status !== DeliveryStatus.DEAD) expect(w.msgRecords().every((r) => eventIdOf(r) < poisonId)).toBe(true);
    };
    for (const cmd of cmds) {
      await w.run(cmd);
      check();
    }
    await w.settle(check);

    const dead = w.outbox.events.find((e) => e.eventId === poisonId)!;
    expect(dead).toMatchObject({ status: DeliveryStatus.DEAD, attempts: 5 });
    expect(dead.lastError).toContain("refused");
    expect(w.outbox.events.filter((e) => e.eventId !== poisonId).every((e) => e.status === DeliveryStatus.SENT && e.attempts === 0)).toBe(true);
    expect(firstDeliveries(w.msgRecords())).toEqual(rows.map((e) => e.eventId).filter((id) => id !== poisonId));
    // Backoff 1 + 2 + 4 + 8 s at least lies between the first and the last attempt.
    expect(deadAt! - firstFailureAt!).toBeGreaterThanOrEqual(15_000);
  });

  it.prop(
    [
      fc.array(fc.record({ flid: fc.integer({ min: 0, max: 4 }), tombstone: fc.boolean() }), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 8 }),
      fc.array(cmdArb.filter((c) => c.t !== "events"), { minLength: 5, maxLength: 40, size: "medium" }),
    ],
    { numRuns: NUM_RUNS },
  )("a poison schd FLID goes DEAD after 5 attempts with all its events; the other FLIDs are not held up", async (list, poisonFlid, batchLimit, cmds) => {
    runs.schdPoison += 1;
    const w = new FaultyWorld({}, { batchLimit });
    const rows = await w.outbox.append(list.map((e) => w.draft(Target.SCHD, `F${e.flid}`, e.tombstone)));
    const poison = `F${poisonFlid}`;
    w.broker.failRecords((r) => r.topic === "schd" && r.key === poison);
    const hasPoison = rows.some((e) => e.partitionKey === poison);
    let firstFailureAt: number | null = null;
    let deadAt: number | null = null;
    const check = (): void => {
      const events = w.outbox.events.filter((e) => e.partitionKey === poison);
      if (firstFailureAt === null && events.some((e) => e.attempts > 0)) firstFailureAt = w.clock.now();
      if (deadAt === null && events.length > 0 && events.every((e) => e.status === DeliveryStatus.DEAD)) deadAt = w.clock.now();
    };
    for (const cmd of cmds) {
      await w.run(cmd);
      check();
    }
    await w.settle(check);
    // The FLID's backoff (1 + 2 + 4 + 8 s at least) was honoured between its first and last try.
    if (hasPoison) expect(deadAt! - firstFailureAt!).toBeGreaterThanOrEqual(15_000);

    const poisoned = w.outbox.events.filter((e) => e.partitionKey === poison);
    expect(poisoned.every((e) => e.status === DeliveryStatus.DEAD && e.attempts === 5)).toBe(true);
    const healthy = w.outbox.events.filter((e) => e.partitionKey !== poison);
    expect(healthy.every((e) => e.status === DeliveryStatus.SENT && e.attempts === 0)).toBe(true);
    expect(w.schdRecords().some((r) => r.key === poison)).toBe(false);
    expectVersionsNeverGoDown(w.schdRecords());
    expectLatestStatePerFlid(w.schdRecords(), healthy);
    expect(rows.length).toBe(list.length);
  });

  it(`ran at least 200 cases per property (configured ${NUM_RUNS})`, () => {
    expect(runs.faults).toBeGreaterThanOrEqual(200);
    expect(runs.msgPoison).toBeGreaterThanOrEqual(200);
    expect(runs.schdPoison).toBeGreaterThanOrEqual(200);
    console.info(`delivery property runs: ${JSON.stringify(runs)}; fault runs covered: ${JSON.stringify(covered)}`);
  });
});
