import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LeaseStore } from "./lease-store.js";

/** What a {@link LeaseStore} implementation hands the contract suite for one test. */
export interface LeaseStoreFixture {
  readonly store: LeaseStore;
  /** The store's clock now, epoch milliseconds. */
  now(): Promise<number>;
  /** Makes the running lease end now, as if its ttl had passed on the store's clock. */
  lapse(): Promise<void>;
  close(): Promise<void>;
}

const TTL = 60_000;
const isRefusal = (r: unknown): boolean => typeof r === "object" && r !== null && "refused" in r;

/**
 * The contract every {@link LeaseStore} must pass (see its guarantees): in a unit spec on
 * `InMemoryLeaseStore`, in an integration spec on each adapter.
 */
export function describeLeaseStoreContract(name: string, factory: () => Promise<LeaseStoreFixture> | LeaseStoreFixture): void {
  describe(`LeaseStore contract: ${name}`, () => {
    let fx: LeaseStoreFixture;
    beforeEach(async () => {
      fx = await factory();
    });
    afterEach(async () => {
      await fx.close();
    });

    it("grants a free lease for ttl by the store's clock; another holder is refused while it runs", async () => {
      const before = await fx.now();
      const a = await fx.store.tryAcquire("A", TTL);
      const after = await fx.now();
      expect(a).toBeDefined();
      expect(a!.until).toBeGreaterThanOrEqual(before + TTL);
      expect(a!.until).toBeLessThanOrEqual(after + TTL);
      expect(await fx.store.tryAcquire("B", TTL)).toBeUndefined();
    });

    it("every grant bumps the epoch, the holder's own re-acquire too; a refused try does not", async () => {
      const a1 = await fx.store.tryAcquire("A", TTL);
      expect(await fx.store.tryAcquire("B", TTL)).toBeUndefined();
      const a2 = await fx.store.tryAcquire("A", TTL);
      expect(a2!.epoch).toBe(a1!.epoch + 1);
    });

    it("a lapsed lease goes to the next holder with a higher epoch; the old holder's renewal and release are refused or ignored", async () => {
      const a = (await fx.store.tryAcquire("A", TTL))!;
      await fx.lapse();
      const b = (await fx.store.tryAcquire("B", TTL))!;
      expect(b.epoch).toBe(a.epoch + 1);
      expect(isRefusal(await fx.store.renew("A", a.epoch, TTL))).toBe(true);
      await fx.store.release("A", a.epoch);
      expect(await fx.store.tryAcquire("C", TTL)).toBeUndefined();
      expect(isRefusal(await fx.store.renew("B", b.epoch, TTL))).toBe(false);
    });

    it("renew extends the lease without moving the epoch, and is refused for another epoch or holder", async () => {
      const a = (await fx.store.tryAcquire("A", TTL))!;
      const until = await fx.store.renew("A", a.epoch, TTL * 2);
      expect(typeof until).toBe("number");
      expect(until as number).toBeGreaterThan(a.until);
      expect(isRefusal(await fx.store.renew("A", a.epoch + 1, TTL))).toBe(true);
      expect(isRefusal(await fx.store.renew("B", a.epoch, TTL))).toBe(true);
      const again = (await fx.store.tryAcquire("A", TTL))!;
      expect(again.epoch).toBe(a.epoch + 1);
    });

    it("a lapsed lease no one took is renewed by its holder (the epoch has not moved)", async () => {
      const a = (await fx.store.tryAcquire("A", TTL))!;
      await fx.lapse();
      expect(isRefusal(await fx.store.renew("A", a.epoch, TTL))).toBe(false);
      expect(await fx.store.tryAcquire("B", TTL)).toBeUndefined();
    });

    it("release frees the lease at once for another holder", async () => {
      const a = (await fx.store.tryAcquire("A", TTL))!;
      await fx.store.release("A", a.epoch);
      const b = await fx.store.tryAcquire("B", TTL);
      expect(b?.epoch).toBe(a.epoch + 1);
    });

    it("of two holders trying at once exactly one is granted", async () => {
      const [a, b] = await Promise.all([fx.store.tryAcquire("A", TTL), fx.store.tryAcquire("B", TTL)]);
      expect([a, b].filter((g) => g !== undefined)).toHaveLength(1);
    });
  });
}
