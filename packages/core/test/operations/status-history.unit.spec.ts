import { describe, expect, it } from "vitest";
import { StatusSamples, statusGauges, statusHistory } from "../../src/operations/status-history.js";
import { MINUTE_MS } from "../../src/operations/throughput-reader.js";
import type { PipelineStatus } from "../../src/processing/status-reader.js";

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);
const status = (extra: Partial<PipelineStatus> = {}): PipelineStatus => ({
  head: null,
  byStatus: { PENDING: 0, FAILED: 0, SUCCEEDED: 0, SKIPPED: 0, DEAD: 0 },
  deadLetters: 0,
  backfillDebt: 0,
  oldestBackfillAt: null,
  delivery: {},
  horizon: 0,
  ...extra,
});
const gauges = (backlog: number) => ({ backlog, headAgeMs: 0, deliveryLagMs: 0, dead: 0, backfillDebt: 0 });

describe("statusGauges", () => {
  it("backlog is PENDING + FAILED; the ages are measured from now; the lag is the oldest pending event of any target", () => {
    const g = statusGauges(
      status({
        head: { msgId: 7, status: "FAILED", receivedAt: T0 - 4_000 },
        byStatus: { PENDING: 3, FAILED: 2, SUCCEEDED: 9, SKIPPED: 1, DEAD: 4 },
        deadLetters: 4,
        backfillDebt: 6,
        delivery: { MSG: { pending: 1, oldestPendingAt: T0 - 2_000, dead: 0 }, SCHD: { pending: 2, oldestPendingAt: T0 - 9_000, dead: 1 }, REF: { pending: 0, oldestPendingAt: null, dead: 0 } },
      }),
      T0,
    );
    expect(g).toEqual({ backlog: 5, headAgeMs: 4_000, deliveryLagMs: 9_000, dead: 4, backfillDebt: 6 });
  });

  it("nothing unfinished and nothing pending: ages 0", () => {
    expect(statusGauges(status(), T0)).toEqual({ backlog: 0, headAgeMs: 0, deliveryLagMs: 0, dead: 0, backfillDebt: 0 });
  });
});

describe("StatusSamples and statusHistory", () => {
  it("keeps one sample per minute (the last taken in it) and gives null gauges for the minutes without one", () => {
    const samples = new StatusSamples();
    samples.record(T0 + 5_000, gauges(1));
    samples.record(T0 + 50_000, gauges(2));
    samples.record(T0 + 2 * MINUTE_MS, gauges(3));
    const history = statusHistory(
      [0, 1, 2].map((i) => ({ at: T0 + i * MINUTE_MS, processed: i, sent: 10 * i })),
      samples,
    );
    expect(history).toEqual([
      { at: T0, processed: 0, sent: 0, ...gauges(2) },
      { at: T0 + MINUTE_MS, processed: 1, sent: 10, backlog: null, headAgeMs: null, deliveryLagMs: null, dead: null, backfillDebt: null },
      { at: T0 + 2 * MINUTE_MS, processed: 2, sent: 20, ...gauges(3) },
    ]);
  });

  it("forgets samples older than its capacity in minutes", () => {
    const samples = new StatusSamples(3);
    for (let i = 0; i < 10; i++) samples.record(T0 + i * MINUTE_MS, gauges(i));
    expect(samples.size).toBe(3);
    expect(samples.at(T0 + 6 * MINUTE_MS)).toBeUndefined();
    expect(samples.at(T0 + 7 * MINUTE_MS)).toEqual(gauges(7));
    // A gap: the minutes before the window go even when fewer than capacity are kept.
    samples.record(T0 + 30 * MINUTE_MS, gauges(30));
    expect(samples.size).toBe(1);
  });
});
