import { describe, expect, it } from "vitest";
import type { ReconcileCounts, StatusReader } from "@msgx/core";
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
});
