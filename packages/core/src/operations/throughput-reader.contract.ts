import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProcStatus } from "../model/proc-record.js";
import { MINUTE_MS, type ThroughputReader } from "./throughput-reader.js";

/** A stored record as the contract seeds it. */
export interface ThroughputRecordSeed {
  readonly msgId: number;
  readonly status: ProcStatus;
  readonly updatedAt: number;
  /** In the archive (`proc_state_hst`) rather than live. */
  readonly archived?: boolean;
}

/** What a {@link ThroughputReader} implementation hands the contract suite for one test. */
export interface ThroughputReaderFixture {
  readonly reader: ThroughputReader;
  /** Stores these records and outbox events (`sentAt` null = not sent yet), as committed data. */
  seed(records: readonly ThroughputRecordSeed[], events: readonly { readonly sentAt: number | null }[]): Promise<void>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);

/** The contract every {@link ThroughputReader} must pass (see its guarantees). */
export function describeThroughputReaderContract(name: string, factory: () => Promise<ThroughputReaderFixture> | ThroughputReaderFixture): void {
  describe(`ThroughputReader contract: ${name}`, () => {
    let fx: ThroughputReaderFixture;
    beforeEach(async () => {
      fx = await factory();
    });
    afterEach(async () => {
      await fx.close();
    });

    it("one entry per minute, oldest first, zeros included", async () => {
      const got = await fx.reader.throughput(T0, 3);
      expect(got).toEqual([
        { at: T0, processed: 0, sent: 0 },
        { at: T0 + MINUTE_MS, processed: 0, sent: 0 },
        { at: T0 + 2 * MINUTE_MS, processed: 0, sent: 0 },
      ]);
    });

    it("counts terminal records (live and archived) by the minute of their last change, and sent events by send time", async () => {
      await fx.seed(
        [
          { msgId: 1, status: "SUCCEEDED", updatedAt: T0 + 1 },
          { msgId: 2, status: "SKIPPED", updatedAt: T0 + MINUTE_MS - 1 },
          { msgId: 3, status: "DEAD", updatedAt: T0 + MINUTE_MS },
          { msgId: 4, status: "SUCCEEDED", updatedAt: T0 + 2 * MINUTE_MS + 5, archived: true },
          // Not finished: never counted, whenever it changed.
          { msgId: 5, status: "PENDING", updatedAt: T0 + 10 },
          { msgId: 6, status: "FAILED", updatedAt: T0 + 10 },
          // Outside the window on either side.
          { msgId: 7, status: "SUCCEEDED", updatedAt: T0 - 1 },
          { msgId: 8, status: "SUCCEEDED", updatedAt: T0 + 3 * MINUTE_MS, archived: true },
        ],
        [{ sentAt: T0 }, { sentAt: T0 + 30_000 }, { sentAt: T0 + 2 * MINUTE_MS + 59_999 }, { sentAt: null }, { sentAt: T0 - MINUTE_MS }, { sentAt: T0 + 3 * MINUTE_MS }],
      );
      expect(await fx.reader.throughput(T0, 3)).toEqual([
        { at: T0, processed: 2, sent: 2 },
        { at: T0 + MINUTE_MS, processed: 1, sent: 0 },
        { at: T0 + 2 * MINUTE_MS, processed: 1, sent: 1 },
      ]);
      expect(await fx.reader.throughput(T0 - MINUTE_MS, 1)).toEqual([{ at: T0 - MINUTE_MS, processed: 1, sent: 1 }]);
    });

    it("refuses a window that does not start on a minute or is not 1 to 1440 minutes, with RangeError", async () => {
      await expect(fx.reader.throughput(T0 + 1, 1)).rejects.toThrow(RangeError);
      for (const minutes of [0, 1441, 1.5, Number.NaN]) await expect(fx.reader.throughput(T0, minutes)).rejects.toThrow(RangeError);
    });
  });
}
