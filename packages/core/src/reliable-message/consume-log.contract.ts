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

const entry = (messageId: string, sendCount = 1): ConsumeLogEntry => ({
  messageId,
  consumerQueue: "accounting",
  sendCount,
  consumedAt: Date.UTC(2026, 2, 5, 8, 0, 0),
});

/**
 * The behaviour every `ConsumeLog` must show (see the port's JSDoc): the claim and the business
 * writes commit together, a claimed id is never claimed again, and two transactions racing for
 * one id get one claim between them.
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

    const consume = (id: string, sendCount = 1): Promise<boolean> =>
      s.log.transaction(async (tx) => {
        const claimed = await s.log.claim(tx, entry(id, sendCount));
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
