import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunnerRole, type RunnerBeat, type RunnerPresenceStore } from "./runner-presence.js";

/** What a {@link RunnerPresenceStore} implementation hands the contract suite for one test. */
export interface RunnerPresenceFixture {
  readonly store: RunnerPresenceStore;
  /** Makes the runner's last beat `ms` older, as if the store's clock had moved on (a fake clock, or `seen_at` moved back). */
  age(runnerId: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);
const beat = (runnerId: string, extra: Partial<RunnerBeat> = {}): RunnerBeat => ({
  runnerId,
  host: "ops-1",
  pid: 4242,
  role: RunnerRole.STANDBY,
  epoch: null,
  startedAt: T0,
  ...extra,
});

/**
 * The contract every {@link RunnerPresenceStore} must pass (see its guarantees): in a unit spec on
 * `InMemoryRunnerPresence`, in an integration spec on each adapter.
 */
export function describeRunnerPresenceContract(name: string, factory: () => Promise<RunnerPresenceFixture> | RunnerPresenceFixture): void {
  describe(`RunnerPresenceStore contract: ${name}`, () => {
    let fx: RunnerPresenceFixture;
    beforeEach(async () => {
      fx = await factory();
    });
    afterEach(async () => {
      await fx.close();
    });

    it("lists what the runners stated, leaders first, then by start time and id", async () => {
      await fx.store.beat(beat("b", { startedAt: T0 + 2_000 }));
      await fx.store.beat(beat("a", { startedAt: T0 + 2_000, host: "ops-2", pid: 7 }));
      await fx.store.beat(beat("c", { startedAt: T0 + 1_000 }));
      await fx.store.beat(beat("z", { role: RunnerRole.LEADER, epoch: 12, startedAt: T0 + 5_000 }));
      const list = await fx.store.list({ staleAfterMs: 60_000 });
      expect(list.map((r) => r.runnerId)).toEqual(["z", "c", "a", "b"]);
      expect(list[0]).toMatchObject({ runnerId: "z", host: "ops-1", pid: 4242, role: "leader", epoch: 12, startedAt: T0 + 5_000, stale: false });
      expect(list[2]).toMatchObject({ runnerId: "a", host: "ops-2", pid: 7, role: "standby", epoch: null, startedAt: T0 + 2_000, stale: false });
      for (const r of list) expect(Number.isFinite(r.seenAt)).toBe(true);
    });

    it("a beat replaces the runner's row whole: a standby that took over is the leader", async () => {
      await fx.store.beat(beat("a"));
      await fx.store.beat(beat("a", { role: RunnerRole.LEADER, epoch: 3 }));
      const list = await fx.store.list({ staleAfterMs: 60_000 });
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ runnerId: "a", role: "leader", epoch: 3 });
    });

    it("a runner not heard of for longer than staleAfterMs is stale, by the store's clock; a new beat makes it fresh", async () => {
      await fx.store.beat(beat("a"));
      await fx.store.beat(beat("b"));
      await fx.age("a", 20_000);
      const list = await fx.store.list({ staleAfterMs: 15_000 });
      expect(list.map((r) => [r.runnerId, r.stale])).toEqual([
        ["a", true],
        ["b", false],
      ]);
      expect(list[0]!.seenAt).toBeLessThan(list[1]!.seenAt - 19_000);
      expect((await fx.store.list({ staleAfterMs: 60_000 })).every((r) => !r.stale)).toBe(true);
      await fx.store.beat(beat("a"));
      expect((await fx.store.list({ staleAfterMs: 15_000 })).every((r) => !r.stale)).toBe(true);
    });

    it("leave forgets one runner; leaving twice is not an error", async () => {
      await fx.store.beat(beat("a"));
      await fx.store.beat(beat("b"));
      await fx.store.leave("a");
      await fx.store.leave("a");
      expect((await fx.store.list({ staleAfterMs: 60_000 })).map((r) => r.runnerId)).toEqual(["b"]);
    });

    it("prune deletes only the runners silent for longer than its bound", async () => {
      await fx.store.beat(beat("old"));
      await fx.store.beat(beat("recent"));
      await fx.store.beat(beat("live"));
      await fx.age("old", 3_600_000);
      await fx.age("recent", 60_000);
      expect(await fx.store.prune(600_000)).toBe(1);
      expect(await fx.store.prune(600_000)).toBe(0);
      expect((await fx.store.list({ staleAfterMs: 15_000 })).map((r) => [r.runnerId, r.stale])).toEqual([
        ["live", false],
        ["recent", true],
      ]);
    });
  });
}
