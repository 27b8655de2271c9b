import { describe, expect, it } from "vitest";
import { fixture } from "../codec/sis-fixtures.js";
import { MaintenanceWorld } from "./maintenance-world.js";

describe("SCHD_SNAP_LOG: one row per snapshot message a run decides", () => {
  it("logs a DNLD, its duplicate and a refused package in the run's transaction; other kinds log nothing", async () => {
    const w = new MaintenanceWorld({ start: Date.UTC(2026, 2, 5, 3, 0) });
    const dnld = fixture("01-schd-dnld-3-flights.xml");
    w.send(dnld);
    w.send(fixture("04-flop-estt.xml"));
    // The same identity again: SKIPPED as a duplicate, and logged as such.
    w.send(dnld);
    // RECS says 4 for 3 records: the whole package is refused.
    w.send(dnld.replace("<SEQN>480211</SEQN>", "<SEQN>480299</SEQN>").replace("<RECS>3</RECS>", "<RECS>4</RECS>"));
    await w.settle();

    const records = w.pipeline.tables.records;
    expect([...records.values()].map((r) => [r.msgId, r.status])).toEqual([
      [1, "SUCCEEDED"],
      [2, "SUCCEEDED"],
      [3, "SKIPPED"],
      [4, "DEAD"],
    ]);
    const at = w.clock.now();
    const row = (snapId: number, msgId: number, declaredRecs: number, outcome: string, reason: string | null) => ({
      snapId,
      loggedAt: at,
      msgId,
      styp: "DNLD",
      operationDay: "20260305",
      declaredRecs,
      flights: 3,
      outcome,
      reason,
    });
    // Read through the port, newest first.
    expect(await w.store.snapshotLog(10)).toEqual([
      row(3, 4, 4, "DEAD", records.get(4)!.reason),
      row(2, 3, 3, "SKIPPED", "duplicate-of:1"),
      row(1, 1, 3, "SUCCEEDED", null),
    ]);
    expect(records.get(4)!.reason).toMatch(/RECS/);
  });
});
