/**
 * The pump's committed events handed to the msg dispatcher in memory (`CommittedEvents`): random
 * interleavings of the pump's commits, writes by another writer (which the pump learns of at its
 * next commit, as a moved state generation, and reports `lost`), commits in doubt, commits racing
 * the dispatcher's read from the head, broker and database outages, lost acknowledgements and
 * crashes. Afterwards a deduping consumer must have seen every event once, in event-id order,
 * exactly as a dispatcher without the hand-over would have sent them. The guard-removal check:
 * with another writer's events not reported `lost`, the same property fails.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { CommittedEvents } from "../../src/outbox/committed-events.js";
import { DeliveryStatus, Target, type OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { DeliveryWorld, firstDeliveries, msgDraft } from "./delivery-world.js";

const NUM_RUNS = 300;

type Race = "before-read" | "after-read" | "split";
type Cmd =
  | { readonly t: "commit"; readonly n: number }
  | { readonly t: "outside"; readonly n: number }
  | { readonly t: "doubt"; readonly n: number }
  | { readonly t: "race"; readonly n: number; readonly how: Race }
  | { readonly t: "dispatch" }
  | { readonly t: "advance"; readonly ms: number }
  | { readonly t: "brokerOutage"; readonly ms: number }
  | { readonly t: "storeOutage"; readonly ms: number }
  | { readonly t: "loseAcks"; readonly n: number }
  | { readonly t: "crash" }
  | { readonly t: "crashAfterSend" };

const n = fc.integer({ min: 1, max: 5 });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant("commit" as const), n }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("outside" as const), n }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("doubt" as const), n }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("race" as const), n, how: fc.constantFrom<Race>("before-read", "after-read", "split") }) },
  { weight: 6, arbitrary: fc.constant({ t: "dispatch" as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("brokerOutage" as const), ms: fc.integer({ min: 1, max: 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("storeOutage" as const), ms: fc.integer({ min: 1, max: 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("loseAcks" as const), n: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ t: "crash" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "crashAfterSend" as const }) },
);
const configArb = fc.record({ batchSize: fc.integer({ min: 1, max: 10 }), pipelined: fc.boolean(), markDelayMs: fc.constantFrom(0, 50, 5_000) });
type Config = { readonly batchSize: number; readonly pipelined: boolean; readonly markDelayMs?: number };

/** What the runs covered, checked at the end: a property that exercises nothing proves nothing. */
const covered = { handed: 0, fromStore: 0, lost: 0, raced: 0, gatheredMarks: 0 };

/** The delivery world with a pump stand-in that hands its commits over, and another writer. */
class HandOverWorld extends DeliveryWorld {
  committed = new CommittedEvents();
  brokerDownUntil = 0;
  storeDownUntil = 0;
  /** Another writer wrote since the pump's last commit: the pump's next commit finds the generation moved on. */
  generationMoved = false;
  /** A commit to make during the dispatcher's next read from the head. */
  race: { readonly n: number; readonly how: Race } | null = null;
  #version = 0;

  constructor(
    options: Config,
    /** The guard under test: the pump reports another writer's events `lost`. Off only for the guard-removal check. */
    readonly reportsOutsideWrites = true,
  ) {
    super({ ...options, target: Target.MSG });
    this.restart();
    const outbox = this.outbox;
    const markSent = outbox.markSent.bind(outbox);
    outbox.markSent = async (eventIds, at, placements) => {
      if ((options.markDelayMs ?? 0) > 0 && eventIds.length > 1) covered.gatheredMarks += 1;
      return markSent(eventIds, at, placements);
    };
    const pending = outbox.pending.bind(outbox);
    outbox.pending = async (target, now, limit, afterEventId) => {
      const race = afterEventId === undefined ? this.race : null;
      if (race !== null) this.race = null;
      if (race?.how === "before-read") await this.commit(race.n);
      const split = race?.how === "split" ? await this.#insert(race.n) : null;
      const read = await pending(target, now, limit, afterEventId);
      if (read.length > 0) covered.fromStore += 1;
      if (race !== null) covered.raced += 1;
      if (race?.how === "after-read") await this.commit(race.n);
      // Committed before the read, handed over only after it: the read and the hand-over both hold them.
      if (split !== null) this.committed.committed(split.drafts, split.ids, this.clock.now());
      return read;
    };
  }

  /** A crash takes the process: a new pump (and its hand-over) and a new dispatcher over the same store. */
  override restart(): void {
    if (this.committed === undefined) return super.restart();
    this.committed = new CommittedEvents();
    const handOver = this.committed.of(Target.MSG);
    const take = handOver.take.bind(handOver);
    handOver.take = (afterEventId, limit) => {
      const taken = take(afterEventId, limit);
      if (taken !== undefined && taken.length > 0) covered.handed += 1;
      return taken;
    };
    this.msgOptions = { ...this.msgOptions, handOver };
    super.restart();
  }

  draft(): OutboxEventDraft {
    this.#version += 1;
    return msgDraft(`F${this.#version % 3}`, this.#version);
  }

  async #insert(count: number): Promise<{ drafts: OutboxEventDraft[]; ids: number[] }> {
    const drafts = Array.from({ length: count }, () => this.draft());
    const down = this.store.faults.down;
    this.store.faults.setDown(false);
    const ids = drafts.map((d) => this.store.insertEvent(d, this.clock.now()));
    this.store.faults.setDown(down);
    return { drafts, ids };
  }

  /** The pump commits a run: a moved generation first makes it forget (and report `lost`), then its events are handed over. */
  async commit(count: number): Promise<void> {
    if (this.generationMoved) {
      this.generationMoved = false;
      if (this.reportsOutsideWrites) this.committed.lost();
      covered.lost += 1;
    }
    const { drafts, ids } = await this.#insert(count);
    this.committed.committed(drafts, ids, this.clock.now());
  }

  async run(cmd: Cmd): Promise<void> {
    const now = this.clock.now();
    switch (cmd.t) {
      case "commit":
        return this.commit(cmd.n);
      case "outside":
        await this.#insert(cmd.n);
        this.generationMoved = true;
        return;
      case "doubt":
        // The commit landed but its answer was lost: the pump reports `lost`.
        await this.#insert(cmd.n);
        this.committed.lost();
        return;
      case "race":
        this.race = { n: cmd.n, how: cmd.how };
        return;
      case "dispatch":
        await this.step();
        return;
      case "advance":
        return this.clock.advance(cmd.ms);
      case "brokerOutage":
        this.brokerDownUntil = Math.max(this.brokerDownUntil, now + cmd.ms);
        return;
      case "storeOutage":
        this.storeDownUntil = Math.max(this.storeDownUntil, now + cmd.ms);
        return;
      case "loseAcks":
        return this.broker.loseNextAcks(cmd.n);
      case "crash":
        return this.restart();
      case "crashAfterSend":
        this.crashAt = "dispatch.after-send";
        return;
    }
  }

  async step(): Promise<number | null> {
    const now = this.clock.now();
    this.broker.faults.setDown(now < this.brokerDownUntil);
    this.store.faults.setDown(now < this.storeDownUntil);
    try {
      return (await this.dispatcher.step()).next;
    } catch (e) {
      if (!(e instanceof SimulatedCrashMarker)) throw e;
      this.restart();
      return this.clock.now();
    }
  }

  /** Steps the dispatcher, moving the clock to its next instant, until nothing is pending. */
  async settle(): Promise<void> {
    for (let i = 0; i < 20_000; i++) {
      const next = await this.step();
      if (next === null) {
        if ((await this.outbox.countPending(Target.MSG)) === 0) return;
        continue;
      }
      if (next > this.clock.now()) this.clock.set(next);
    }
    throw new Error("delivery did not settle");
  }
}

/** Runs `cmds` and settles; returns the event ids in the order a deduping consumer first saw them, and every stored id. */
async function deliver(config: Config, cmds: readonly Cmd[], reportsOutsideWrites = true) {
  const world = new HandOverWorld(config, reportsOutsideWrites);
  for (const cmd of cmds) await world.run(cmd);
  world.brokerDownUntil = 0;
  world.storeDownUntil = 0;
  await world.settle();
  await world.dispatcher.settle();
  const events = world.outbox.events.filter((e) => e.target === Target.MSG);
  return { seen: firstDeliveries(world.msgRecords()), stored: events.map((e) => e.eventId), statuses: new Set(events.map((e) => e.status)) };
}

describe("the hand-over of committed events to the msg dispatcher", () => {
  it.prop([configArb, fc.array(cmdArb, { minLength: 1, maxLength: 60 })], { numRuns: NUM_RUNS })(
    "a deduping consumer sees every event once, in event-id order, whatever the commits, outside writes, races, faults and crashes",
    async (config, cmds) => {
      const { seen, stored, statuses } = await deliver(config, cmds);
      expect(seen).toEqual(stored);
      expect([...statuses].filter((s) => s !== DeliveryStatus.SENT)).toEqual([]);
    },
  );

  it("covered: batches were sent from the hand-over and from the store, hand-overs were lost, commits raced the read", () => {
    expect(covered.handed).toBeGreaterThan(30);
    expect(covered.fromStore).toBeGreaterThan(100);
    expect(covered.lost).toBeGreaterThan(20);
    expect(covered.raced).toBeGreaterThan(20);
    expect(covered.gatheredMarks).toBeGreaterThan(10);
  });

  it("guard removal: when another writer's events are not reported lost, the property fails (an event is sent after a later one)", async () => {
    const failure = await fc.check(
      fc.asyncProperty(configArb, fc.array(cmdArb, { minLength: 1, maxLength: 60 }), async (config, cmds) => {
        const { seen, stored } = await deliver(config, cmds, false);
        expect(seen).toEqual(stored);
      }),
      { numRuns: 2_000 },
    );
    expect(failure.failed).toBe(true);
  });

  it("an example: with markDelayMs, the marks of handed batches are written together once due, without reading the store", async () => {
    const world = new HandOverWorld({ batchSize: 10, pipelined: true, markDelayMs: 50 });
    const reads: number[] = [];
    const marks: number[][] = [];
    const pending = world.outbox.pending.bind(world.outbox);
    world.outbox.pending = async (...args) => {
      const read = await pending(...args);
      reads.push(read.length);
      return read;
    };
    const markSent = world.outbox.markSent.bind(world.outbox);
    world.outbox.markSent = async (eventIds, at, placements) => {
      marks.push([...eventIds]);
      return markSent(eventIds, at, placements);
    };
    const t0 = world.clock.now();
    await world.commit(1);
    // Read from the head, a short run sent whole: marked on its own, nothing else to do.
    expect(await world.step()).toBeNull();
    for (let i = 1; i <= 3; i++) {
      world.clock.advance(10);
      await world.commit(1);
      // Handed over and sent; its mark waits, and the step asks to be called when the first waiting mark is due.
      expect(await world.step()).toBe(t0 + 10 + 50);
    }
    expect(marks).toEqual([[1]]);
    world.clock.set(t0 + 60);
    const due = await world.dispatcher.step();
    expect(due).toEqual({ did: "idle", next: null });
    expect(marks).toEqual([[1], [2, 3, 4]]);
    expect(reads).toEqual([1]);
    expect(firstDeliveries(world.msgRecords())).toEqual([1, 2, 3, 4]);
    await world.dispatcher.settle();
    expect(world.outbox.events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
  });

  it("an example: gathered marks are written before a read from the head and by settle(), and at batchSize", async () => {
    const world = new HandOverWorld({ batchSize: 3, pipelined: true, markDelayMs: 5_000 });
    const marks: number[][] = [];
    const markSent = world.outbox.markSent.bind(world.outbox);
    world.outbox.markSent = async (eventIds, at, placements) => {
      marks.push([...eventIds]);
      return markSent(eventIds, at, placements);
    };
    await world.commit(1);
    await world.step();
    for (let i = 0; i < 4; i++) {
      await world.commit(1);
      await world.step();
    }
    // Three handed events reach batchSize; the fourth waits.
    expect(marks).toEqual([[1], [2, 3, 4]]);
    world.committed.lost();
    await world.commit(1);
    await world.step(); // not listening: the next read is from the head, after the waiting mark
    expect(marks.slice(0, 3)).toEqual([[1], [2, 3, 4], [5]]);
    await world.commit(1);
    await world.step();
    await world.dispatcher.settle();
    expect(marks.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(world.outbox.events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
  });

  it("an example: gathered marks keep each event's own placement, also from a port that answers fewer", async () => {
    const world = new HandOverWorld({ batchSize: 10, pipelined: true, markDelayMs: 50 });
    const marks: { ids: number[]; placements: readonly unknown[] }[] = [];
    const markSent = world.outbox.markSent.bind(world.outbox);
    world.outbox.markSent = async (eventIds, at, placements) => {
      marks.push({ ids: [...eventIds], placements: placements ?? [] });
      return markSent(eventIds, at, placements);
    };
    const send = world.broker.send.bind(world.broker);
    let answerNone = false;
    world.broker.send = async (records, signal) => {
      const placements = await send(records, signal);
      return answerNone ? [] : placements;
    };
    const t0 = world.clock.now();
    await world.commit(1);
    await world.step();
    for (const none of [true, false, true]) {
      answerNone = none;
      world.clock.advance(10);
      await world.commit(1);
      await world.step();
    }
    world.clock.set(t0 + 60);
    await world.dispatcher.step();
    const gathered = marks.find((m) => m.ids.length === 3)!;
    expect(gathered.ids).toEqual([2, 3, 4]);
    expect(gathered.placements).toHaveLength(3);
    expect(gathered.placements[0]).toBeNull();
    expect(gathered.placements[1]).not.toBeNull();
    expect(gathered.placements[2]).toBeNull();
  });

  it("an example: the pump's commits after a read from the head are sent without reading them back", async () => {
    const world = new HandOverWorld({ batchSize: 10, pipelined: true });
    const reads: number[] = [];
    const pending = world.outbox.pending.bind(world.outbox);
    world.outbox.pending = async (...args) => {
      const read = await pending(...args);
      reads.push(read.length);
      return read;
    };
    await world.commit(2);
    await world.step();
    expect(reads).toEqual([2]);
    await world.commit(1);
    await world.step();
    await world.commit(3);
    await world.step();
    expect(reads).toEqual([2]);
    expect(firstDeliveries(world.msgRecords())).toEqual([1, 2, 3, 4, 5, 6]);
    await world.dispatcher.settle();
    expect(world.outbox.events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
  });
});
