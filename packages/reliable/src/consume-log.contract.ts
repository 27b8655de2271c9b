import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConsumeLog, ConsumeLogEntry } from "./consume-log.js";

/** One fresh, empty consumer database per test, with a business table the handler writes. */
export interface ConsumeLogContractSubject<Tx> {
  readonly log: ConsumeLog<Tx>;
  /** A business write of the handler, through `tx`. */
  write(tx: Tx, key: string): Promise<void>;
  /** The committed business keys, sorted. */
  written(): Promise<readonly string[]>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);

const entry = (messageId: string, sendCount = 1, consumedAt = T0): ConsumeLogEntry => ({
  messageId,
  consumerQueue: "accounting",
  sendCount,
  consumedAt,
});

/**
 * The behaviour every `ConsumeLog` must show (see the port's JSDoc): the claim and the business
 * writes commit together, a claimed id is never claimed again (until purged), two transactions
 * racing for one id get one claim between them, and the purge takes the oldest claims first.
 */
export function describeConsumeLogContract<Tx>(name: string, factory: () => Promise<ConsumeLogContractSubject<Tx>>): void {
  describe(`ConsumeLog contract: ${name}`, () => {
    let s: ConsumeLogContractSubject<Tx>;
    beforeEach(async () => {
      s = await factory();
    });
    afterEach(async () => {
      await s.close();
    });

    const consume = (id: string, sendCount = 1, consumedAt = T0): Promise<boolean> =>
      s.log.transaction(async (tx) => {
        const claimed = await s.log.claim(tx, entry(id, sendCount, consumedAt));
        if (claimed) await s.write(tx, id);
        return claimed;
      });

    it("a committed claim is final: the same id is never claimed again, other ids are", async () => {
      expect(await consume("M-1")).toBe(true);
      expect(await consume("M-1", 2)).toBe(false);
      expect(await consume("M-2")).toBe(true);
      expect(await s.written()).toEqual(["M-1", "M-2"]);
    });

    it("a transaction that throws rolls back its claim and its writes, and the error comes out unchanged", async () => {
      const boom = new Error("handler failed");
      const got = await s.log
        .transaction(async (tx) => {
          await s.log.claim(tx, entry("M-1"));
          await s.write(tx, "M-1");
          throw boom;
        })
        .catch((e: unknown) => e);
      expect(got).toBe(boom);
      expect(await s.written()).toEqual([]);
      expect(await consume("M-1")).toBe(true);
      expect(await s.written()).toEqual(["M-1"]);
    });

    it("several ids claimed in one transaction commit together", async () => {
      await s.log.transaction(async (tx) => {
        expect(await s.log.claim(tx, entry("A"))).toBe(true);
        expect(await s.log.claim(tx, entry("B"))).toBe(true);
        await s.write(tx, "A");
        await s.write(tx, "B");
      });
      expect([await consume("A"), await consume("B")]).toEqual([false, false]);
      expect(await s.written()).toEqual(["A", "B"]);
    });

    // The business table holds each key once: a claim again after a purge records no business row.
    const claimOnly = (id: string, sendCount = 1, consumedAt = T0): Promise<boolean> =>
      s.log.transaction((tx) => s.log.claim(tx, entry(id, sendCount, consumedAt)));

    it("purge deletes the claims consumed before the instant, oldest first, at most limit per call", async () => {
      const minute = 60_000;
      // Claimed out of time order, two at one instant: the order is consumedAt, then messageId.
      for (const [id, at] of [["D", 3], ["A", 0], ["C", 2], ["B2", 1], ["B1", 1], ["E", 4]] as const) expect(await claimOnly(id, 1, T0 + at * minute)).toBe(true);
      for (const none of [0, -1, 0.5, Number.NaN]) expect(await s.log.purge(T0 + 4 * minute, none)).toBe(0);
      expect(await s.log.purge(T0 + 4 * minute, 2)).toBe(2);
      // A and B1 went first: they can be claimed again; B2 (same instant as B1, later id) is still there.
      expect(await claimOnly("B2", 2)).toBe(false);
      expect(await claimOnly("B1", 2, T0 + 10 * minute)).toBe(true);
      expect(await claimOnly("A", 2, T0 + 10 * minute)).toBe(true);
      expect(await s.log.purge(T0 + 4 * minute, 10)).toBe(3);
      expect(await s.log.purge(T0 + 4 * minute, 10)).toBe(0);
      // E sits exactly at the instant (not before it) and the re-claims are later: all stay.
      expect([await claimOnly("E", 2), await claimOnly("B1", 3), await claimOnly("A", 3)]).toEqual([false, false, false]);
      expect([await claimOnly("B2", 2), await claimOnly("C", 2), await claimOnly("D", 2)]).toEqual([true, true, true]);
    });

    it("purge beside an open transaction: the uncommitted claim is not purged from under it", async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let claimedSignal!: () => void;
      const claimed = new Promise<void>((r) => (claimedSignal = r));
      const open = s.log.transaction(async (tx) => {
        const got = await s.log.claim(tx, entry("M-1"));
        await s.write(tx, "M-1");
        claimedSignal();
        await gate;
        return got;
      });
      await claimed;
      let purgeDone = false;
      const purge = s.log.purge(T0 + 1, 10).then((n) => ((purgeDone = true), n));
      await new Promise((r) => setTimeout(r, 100));
      const finishedBeforeCommit = purgeDone;
      release();
      expect(await open).toBe(true);
      const purged = await purge;
      // Done before the commit: it saw nothing committed, and the claim survives it. Not done by
      // then: it ran beside the transaction (0) or waited for the commit and purged the claim (1).
      expect(finishedBeforeCommit ? [0] : [0, 1]).toContain(purged);
      expect(await claimOnly("M-1", 2)).toBe(purged === 1);
      expect(await s.written()).toEqual(["M-1"]);
    });

    for (const firstCommits of [true, false]) {
      it(`two transactions racing for one id: one claim between them (the first ${firstCommits ? "commits" : "rolls back"})`, async () => {
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let firstClaimed!: () => void;
        const claimedSignal = new Promise<void>((r) => (firstClaimed = r));
        const first = s.log
          .transaction(async (tx) => {
            const claimed = await s.log.claim(tx, entry("M-1"));
            await s.write(tx, "M-1");
            firstClaimed();
            await gate;
            if (!firstCommits) throw new Error("first rolls back");
            return claimed;
          })
          .catch(() => "rolled back" as const);
        await claimedSignal;
        const second = consume("M-1", 2);
        await new Promise((r) => setTimeout(r, 50));
        release();
        const results = [await first, await second];
        expect(results).toEqual(firstCommits ? [true, false] : ["rolled back", true]);
        expect(await s.written()).toEqual(["M-1"]);
      });
    }
  });
}
