import { describe, expect, it } from "vitest";
import type { PipelineStatus, ReconcileCounts, StatusReader } from "@msgx/core";
import { ManualClock } from "@msgx/core/testing";
import { createMetrics } from "../src/app/metrics.js";

/** A status reader whose database is gone: the gauges read from it are not the subject here. */
const unreachable: StatusReader = {
  status: async () => {
    throw new Error("no database in this test");
  },
};

const line = (body: string, name: string): string | undefined => body.split("\n").find((l) => l.startsWith(`${name} `));

describe("metrics", () => {
  it("shows the reconciler's last full pass, and nothing for it before one finished", async () => {
    let counts: ReconcileCounts | undefined;
    const metrics = createMetrics(unreachable, new ManualClock(), () => counts);
    const before = (await metrics.render()).body;
    expect(before).not.toContain("msgx_reconcile_");
    expect(line(before, "msgx_status_up")).toBe("msgx_status_up 0");

    counts = { from: 1, through: 10_000, processedWithoutTerminal: 3, backfillMissing: 2, reregistered: 2, finishedAt: 1_764_000_000_000 };
    const after = (await metrics.render()).body;
    expect(line(after, "msgx_reconcile_processed_without_terminal")).toBe("msgx_reconcile_processed_without_terminal 3");
    expect(line(after, "msgx_reconcile_backfill_missing")).toBe("msgx_reconcile_backfill_missing 2");
    expect(line(after, "msgx_reconcile_last_pass_timestamp_seconds")).toBe("msgx_reconcile_last_pass_timestamp_seconds 1764000000");

    counts = { ...counts, processedWithoutTerminal: 0, backfillMissing: 0, finishedAt: 1_764_000_300_000 };
    const later = (await metrics.render()).body;
    expect(line(later, "msgx_reconcile_processed_without_terminal")).toBe("msgx_reconcile_processed_without_terminal 0");
    expect(line(later, "msgx_reconcile_last_pass_timestamp_seconds")).toBe("msgx_reconcile_last_pass_timestamp_seconds 1764000300");
  });

  it("reads the age of the oldest backfill not done yet, from its commit, and 0 when none is left", async () => {
    const clock = new ManualClock(100_000);
    let oldestBackfillAt: number | null = 40_000;
    const status: StatusReader = {
      status: async () => ({ head: null, byStatus: { PENDING: 0, FAILED: 0, SUCCEEDED: 3, SKIPPED: 0, DEAD: 0 }, deadLetters: 0, backfillDebt: 2, oldestBackfillAt, delivery: {}, horizon: 3 }),
    };
    const metrics = createMetrics(status, clock);
    expect(line((await metrics.render()).body, "msgx_backfill_oldest_age_seconds")).toBe("msgx_backfill_oldest_age_seconds 60");
    oldestBackfillAt = null;
    expect(line((await metrics.render()).body, "msgx_backfill_oldest_age_seconds")).toBe("msgx_backfill_oldest_age_seconds 0");
  });

  it("reads a delivery target 0 once its events are all sent, when the status no longer lists it", async () => {
    const clock = new ManualClock(100_000);
    let delivery: PipelineStatus["delivery"] = { msg: { pending: 2, dead: 1, oldestPendingAt: 55_000 } };
    const status: StatusReader = {
      status: async () => ({ head: null, byStatus: { PENDING: 0, FAILED: 0, SUCCEEDED: 3, SKIPPED: 0, DEAD: 0 }, deadLetters: 0, backfillDebt: 0, oldestBackfillAt: null, delivery, horizon: 3 }),
    };
    const metrics = createMetrics(status, clock);
    const during = (await metrics.render()).body;
    expect(line(during, 'msgx_delivery_lag_seconds{target="msg"}')).toBe('msgx_delivery_lag_seconds{target="msg"} 45');
    expect(line(during, 'msgx_delivery_pending{target="msg"}')).toBe('msgx_delivery_pending{target="msg"} 2');

    delivery = {};
    const after = (await metrics.render()).body;
    expect(line(after, 'msgx_delivery_lag_seconds{target="msg"}')).toBe('msgx_delivery_lag_seconds{target="msg"} 0');
    expect(line(after, 'msgx_delivery_pending{target="msg"}')).toBe('msgx_delivery_pending{target="msg"} 0');
    expect(line(after, 'msgx_delivery_dead{target="msg"}')).toBe('msgx_delivery_dead{target="msg"} 0');
  });

  it("reads the leader's memory sizes at scrape time, by kind, once a source is watched", async () => {
    const metrics = createMetrics(unreachable, new ManualClock());
    expect((await metrics.render()).body).not.toMatch(/^msgx_leader_memory_entries\{/m);
    let sizes = { flights: 12, identities: 340 };
    metrics.watchLeaderMemory(() => sizes);
    const body = (await metrics.render()).body;
    expect(line(body, 'msgx_leader_memory_entries{kind="flights"}')).toBe('msgx_leader_memory_entries{kind="flights"} 12');
    expect(line(body, 'msgx_leader_memory_entries{kind="identities"}')).toBe('msgx_leader_memory_entries{kind="identities"} 340');
    sizes = { flights: 0, identities: 0 };
    expect(line((await metrics.render()).body, 'msgx_leader_memory_entries{kind="flights"}')).toBe('msgx_leader_memory_entries{kind="flights"} 0');
  });

  it("counts the pump's speculations at scrape time, by result, and keeps counting across a new pump", async () => {
    const metrics = createMetrics(unreachable, new ManualClock());
    expect((await metrics.render()).body).not.toMatch(/^msgx_pump_speculations_total\{/m);
    let counts = { started: 5, decided: 3, read: 1, discarded: 1 };
    metrics.watchSpeculations(() => counts);
    const first = (await metrics.render()).body;
    expect(line(first, 'msgx_pump_speculations_total{result="started"}')).toBe('msgx_pump_speculations_total{result="started"} 5');
    expect(line(first, 'msgx_pump_speculations_total{result="discarded"}')).toBe('msgx_pump_speculations_total{result="discarded"} 1');
    counts = { started: 9, decided: 6, read: 1, discarded: 2 };
    expect(line((await metrics.render()).body, 'msgx_pump_speculations_total{result="decided"}')).toBe('msgx_pump_speculations_total{result="decided"} 6');
    // A new pump (after a takeover) counts from zero again: the counter still only grows.
    counts = { started: 2, decided: 1, read: 0, discarded: 1 };
    expect(line((await metrics.render()).body, 'msgx_pump_speculations_total{result="started"}')).toBe('msgx_pump_speculations_total{result="started"} 11');
  });
});
