/** The lease keeper on the fake store, its own clock moved by hand: when it leads, when it steps down. */
import type { LeaseStore } from "@msgx/core";
import { InMemoryLeaseStore, ManualClock } from "@msgx/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PgLeadership } from "../src/index.js";
import { losesFirstGrantAnswer } from "./lost-grant-answer.js";

describe("PgLeadership (the lease keeper)", () => {
  const keepers: PgLeadership[] = [];
  const world = () => {
    const clock = new ManualClock(0);
    const store = new InMemoryLeaseStore(clock);
    const keeper = (holder: string, wrap: (s: LeaseStore) => LeaseStore = (s) => s) => {
      const k = new PgLeadership({ store: wrap(store), holder, ttlMs: 10_000, clock });
      keepers.push(k);
      return k;
    };
    return { clock, store, keeper };
  };
  afterEach(async () => {
    await Promise.all(keepers.splice(0).map((k) => k.release()));
  });

  it("leads with the grant's epoch; another keeper waits while the lease runs", async () => {
    const { keeper } = world();
    const a = keeper("A");
    const b = keeper("B");
    expect(await a.acquire()).toBe(1);
    expect([a.isLeader, a.mayLead(), a.timing.renewEveryMs]).toEqual([true, true, 3_333]);
    expect(await b.acquire()).toBeUndefined();
  });

  it("a keeper whose clock passed its window (a frozen process) starts nothing and reports the loss once", async () => {
    const { clock, keeper } = world();
    const a = keeper("A");
    await a.acquire();
    const reasons: string[] = [];
    a.watch((why) => reasons.push(why));
    clock.advance(7_999);
    expect(a.mayLead()).toBe(true);
    clock.advance(1);
    expect(a.mayLead()).toBe(false);
    expect(a.mayLead()).toBe(false);
    expect(reasons).toEqual(["lease of epoch 1 not renewed in time (0 ms past its window)"]);
    expect(await a.acquire()).toBeUndefined();
  });

  it("release ends the lease at once: the next keeper leads with the next epoch", async () => {
    const { keeper, store } = world();
    const a = keeper("A");
    await a.acquire();
    await a.release();
    expect(store.row.holder).toBeUndefined();
    expect(await keeper("B").acquire()).toBe(2);
  });

  it("a standby whose grant's answer is lost (COMMIT_UNKNOWN) asks again and leads, instead of giving up", async () => {
    const { keeper, store } = world();
    const lossy = losesFirstGrantAnswer(store);
    const a = keeper("A", () => lossy.store);
    // The lost grant took effect (epoch 1, held by A); the retry finds A holding it and grants epoch 2.
    expect(await a.acquireWhenFree({ pollMs: 1 })).toBe(2);
    expect([lossy.answers(), a.isLeader, store.row.holder, store.row.epoch]).toEqual([2, true, "A", 2]);
    expect(await keeper("B").acquire()).toBeUndefined();
  });

  it("a wall-clock jump does not move a leader's window: it is counted on the monotonic clock", async () => {
    const { clock, keeper } = world();
    const a = keeper("A");
    await a.acquire();
    clock.jump(60_000);
    clock.jump(-120_000);
    expect(a.mayLead()).toBe(true);
    clock.advance(8_000);
    expect(a.mayLead()).toBe(false);
  });

  it("confirm asks the store: yes while this keeper holds its epoch, no once another was granted a newer one", async () => {
    const { clock, store, keeper } = world();
    const a = keeper("A");
    await a.acquire();
    expect(await a.confirm()).toBe(true);
    // The store's wall clock steps past the lease (the keeper's own window is not moved): B is granted epoch 2.
    clock.jump(60_000);
    expect(await keeper("B").acquire()).toBe(2);
    expect(a.isLeader).toBe(true);
    expect(await a.confirm()).toBe(false);
    expect([a.isLeader, store.row.holder]).toEqual([false, "B"]);
  });
});
