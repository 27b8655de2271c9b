import { describe, expect, it } from "vitest";
import { decodeMessage, defaultProcessors, InboxPoller, Pump, silentLogger } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { fixture } from "../codec/sis-fixtures.js";

/** The pump over fakes with the real flight processors. */
function world() {
  const clock = new ManualClock(Date.UTC(2026, 2, 5, 3, 0));
  const mailbox = new InMemoryMailbox(clock);
  const store = new InMemoryPipelineStore(clock);
  const deps = { mailbox, store, clock, logger: silentLogger };
  const poller = new InboxPoller(deps, { batchSize: 50, gapGraceMs: 1_000 });
  const pump = new Pump({ ...deps, decode: (raw) => decodeMessage(raw), processors: defaultProcessors(), horizon: () => poller.horizon }, { maxRun: 50 });
  const settle = async () => {
    while ((await poller.step()).full);
    while ((await pump.step()).did === "processed");
  };
  return { clock, mailbox, store, settle };
}

describe("SCHD_SNAP_LOG: one row per snapshot message a run decides", () => {
  it("logs a DNLD, its duplicate and a refused package in the run's transaction; other kinds log nothing", async () => {
    const w = world();
    const dnld = fixture("01-schd-dnld-3-flights.xml");
    w.mailbox.insert(dnld);
    w.mailbox.insert(fixture("04-flop-estt.xml"));
    // The same identity again: SKIPPED as a duplicate, and logged as such.
    w.mailbox.insert(dnld);
    // RECS says 4 for 3 records: the whole package is refused.
    w.mailbox.insert(dnld.replace("<SEQN>480211</SEQN>", "<SEQN>480299</SEQN>").replace("<RECS>3</RECS>", "<RECS>4</RECS>"));
    await w.settle();

    const statuses = [...w.store.tables.records.values()].map((r) => [r.msgId, r.status]);
    expect(statuses).toEqual([
      [1, "SUCCEEDED"],
      [2, "SUCCEEDED"],
      [3, "SKIPPED"],
      [4, "DEAD"],
    ]);
    const rows = w.store.tables.snapLog.map(({ snapId, loggedAt, ...entry }) => ({ snapId, loggedAt, ...entry }));
    expect(rows).toEqual([
      { snapId: 1, loggedAt: w.clock.now(), msgId: 1, styp: "DNLD", operationDay: "20260305", declaredRecs: 3, flights: 3, outcome: "SUCCEEDED", reason: null },
      { snapId: 2, loggedAt: w.clock.now(), msgId: 3, styp: "DNLD", operationDay: "20260305", declaredRecs: 3, flights: 3, outcome: "SKIPPED", reason: "duplicate-of:1" },
      {
        snapId: 3,
        loggedAt: w.clock.now(),
        msgId: 4,
        styp: "DNLD",
        operationDay: "20260305",
        declaredRecs: 4,
        flights: 3,
        outcome: "DEAD",
        reason: w.store.tables.records.get(4)!.reason,
      },
    ]);
    expect(rows[2]!.reason).toMatch(/RECS/);
  });
});
