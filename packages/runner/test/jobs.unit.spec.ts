import { emptyRunDecision, silentLogger, WAKE_EDGES, type FlightState } from "@msgx/core";
import { InMemoryMailbox, ManualClock, sampleFlight } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
// Not in the @msgx/core/testing barrel yet: imported by path until the export lines are added.
import { InMemoryPipelineStore } from "../../core/src/processing/in-memory-pipeline-store.js";
import { InMemoryMaintenanceStore } from "../../core/src/jobs/in-memory-maintenance-store.js";
import type { AppParts } from "../src/app/app-parts.js";
import type { StepContext } from "../src/app/step-context.js";
import { loadConfig } from "../src/config/load-config.js";
import { createMaintenanceJobs, MAINTENANCE_SCHEDULE } from "../src/jobs/maintenance-schedule.js";

const DAY = 86_400_000;
/** 10:00 airport time (UTC+8) on 9 March 2026; the next 03:30 is 17.5 h ahead. */
const T0 = Date.UTC(2026, 2, 9, 2, 0);
const SWEEP = Date.UTC(2026, 2, 9, 19, 30);

function rig(env: Record<string, string> = {}, fence?: number) {
  const clock = new ManualClock(T0);
  const pipeline = new InMemoryPipelineStore(clock);
  const store = new InMemoryMaintenanceStore(pipeline, clock);
  const mailbox = new InMemoryMailbox(clock);
  let wakes = 0;
  const parts = { kind: "embedded", store: pipeline, mailbox, ...(fence === undefined ? {} : { fence }) } as unknown as AppParts;
  const ctx: StepContext = { parts, config: loadConfig({ env }), logger: silentLogger, clock };
  const jobs = createMaintenanceJobs(ctx, { store });
  const loop = (name: string) => {
    const l = jobs.steps.find((x) => x.name === name);
    if (l === undefined) throw new Error(`no loop ${name}`);
    return async (signal = new AbortController().signal) => {
      const outcome = await l.run(signal);
      // The steps the history sweep wakes after writing tombstones: every delivery step.
      if (outcome.wake.length > 0) {
        expect(outcome.wake).toEqual(WAKE_EDGES.outbox);
        wakes += 1;
      }
      return outcome.after;
    };
  };
  return { clock, pipeline, store, mailbox, jobs, loop, wakes: () => wakes };
}

const flight = (flid: string, day: string): FlightState => ({ ...sampleFlight(flid, 2), operationDay: day });

describe("maintenance loops", () => {
  it("are the four jobs, each on its own schedule", async () => {
    const r = rig();
    expect(r.jobs.steps.map((l) => l.name)).toEqual(["history-sweep", "snap-log-cleanup", "proc-state-archive", "reconciler"]);
    expect(await r.loop("history-sweep")()).toBe(SWEEP - T0);
    expect(await r.loop("snap-log-cleanup")()).toBe(SWEEP - T0);
    expect(await r.loop("proc-state-archive")()).toBe(MAINTENANCE_SCHEDULE.archiveFirstAfterMs);
    expect(await r.loop("reconciler")()).toBe(MAINTENANCE_SCHEDULE.reconcileFirstAfterMs);
  });

  it("the history sweep runs at 03:30 airport time in bounded batches, wakes delivery, then waits a day", async () => {
    const r = rig({ MSGX_HISTORY_RETENTION_DAYS: "3" });
    await r.pipeline.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [flight("1", "20260305"), flight("2", "20260306"), flight("3", "20260307")] }));
    const step = r.loop("history-sweep");
    expect(await step()).toBe(SWEEP - T0);
    r.clock.set(SWEEP);
    // On the 10th local, retention 3: days before the 7th retire.
    expect(await step()).toBe(DAY);
    expect([...r.pipeline.tables.flights.keys()]).toEqual(["3"]);
    expect(r.store.tables.flightHistory.map((h) => h.flid)).toEqual(["1", "2"]);
    expect(r.pipeline.tables.events.filter((e) => e.eventType === "TOMBSTONE")).toHaveLength(4);
    expect(r.wakes()).toBe(1);
  });

  it("follows history.sweepAt and airport.utcOffsetMinutes", async () => {
    const r = rig({ MSGX_HISTORY_SWEEP_AT: "04:15", MSGX_AIRPORT_UTC_OFFSET_MINUTES: "0" });
    expect(await r.loop("history-sweep")()).toBe(Date.UTC(2026, 2, 9, 4, 15) - T0);
  });

  it("the snap-log cleanup keeps history.snapLogRetentionDays", async () => {
    const r = rig({ MSGX_HISTORY_SNAP_LOG_RETENTION_DAYS: "30" });
    r.store.logSnapshot(1, SWEEP - 31 * DAY);
    r.store.logSnapshot(2, SWEEP - 29 * DAY);
    await r.loop("snap-log-cleanup")();
    r.clock.set(SWEEP);
    await r.loop("snap-log-cleanup")();
    expect(r.store.pipeline.tables.snapLog.map((s) => s.msgId)).toEqual([2]);
  });

  it("the jobs carry the runner's fence: a deposed leader's archive writes nothing", async () => {
    const r = rig({}, 1);
    r.pipeline.tables.epoch = 2;
    await r.pipeline.enqueue([{ msgId: 1, receivedAt: T0 }], { horizon: 5_000 });
    const step = r.loop("proc-state-archive");
    await step();
    r.clock.advance(MAINTENANCE_SCHEDULE.archiveFirstAfterMs);
    await expect(step()).rejects.toThrow(/fence/);
  });

  it("no reconciler in shadow mode; no processed-row check when the mailbox filters by STATUS", async () => {
    expect(rig({ MSGX_SHADOW: "true" }).jobs.steps.map((l) => l.name)).not.toContain("reconciler");
    for (const [env, reported] of [[{}, 1], [{ MSGX_MYSQL_ONLY_VALID_STATUS: "true" }, 0]] as const) {
      const r = rig(env);
      await r.pipeline.enqueue([], { horizon: 1 });
      const id = r.mailbox.insert("<MSG/>", "INVALID");
      r.mailbox.rows.get(id)!.processedAt = T0;
      const step = r.loop("reconciler");
      await step();
      r.clock.advance(MAINTENANCE_SCHEDULE.reconcileFirstAfterMs);
      expect(await step()).toBe(MAINTENANCE_SCHEDULE.reconcileEveryMs);
      expect(r.jobs.reconcilerCounts()?.processedWithoutTerminal).toBe(reported);
    }
  });
});
