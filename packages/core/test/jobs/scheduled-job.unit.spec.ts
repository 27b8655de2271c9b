import { ManualClock } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { ScheduledJob } from "../../src/jobs/scheduled-job.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** 10:00 airport time (UTC+8) on 9 March 2026; the next 03:30 is 17.5 h ahead. */
const T0 = Date.UTC(2026, 2, 9, 2, 0);
const SWEEP = Date.UTC(2026, 2, 9, 19, 30);
const daily = { kind: "daily", at: "03:30", utcOffsetMinutes: 480 } as const;

/** A batch job whose batches report `more` as scripted, and count their calls. */
function scripted(mores: boolean[], fail: Set<number> = new Set()) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    batch: async () => {
      calls += 1;
      if (fail.has(calls)) throw new Error(`batch ${calls} failed`);
      return { more: mores[calls - 1] ?? false };
    },
  };
}

describe("ScheduledJob", () => {
  it("daily: waits for the next 03:30 airport time, runs batches a pause apart, then waits for tomorrow", async () => {
    const clock = new ManualClock(T0);
    const job = scripted([true, true, false]);
    const s = new ScheduledJob(daily, job.batch, clock, { batchPauseMs: 250 });
    expect(await s.step()).toBe(SWEEP - T0);
    expect(job.calls).toBe(0);
    clock.set(SWEEP - 1);
    expect(await s.step()).toBe(1);
    clock.set(SWEEP);
    expect(await s.step()).toBe(250);
    clock.advance(250);
    expect(await s.step()).toBe(250);
    clock.advance(250);
    expect(await s.step()).toBe(SWEEP + DAY - clock.now());
    expect(job.calls).toBe(3);
    expect(s.nextRunAt).toBe(SWEEP + DAY);
  });

  it("daily: started exactly at 03:30 or after it, the first run is the next day's", async () => {
    const clock = new ManualClock(SWEEP);
    const job = scripted([]);
    const s = new ScheduledJob(daily, job.batch, clock);
    expect(await s.step()).toBe(DAY);
    expect(job.calls).toBe(0);
  });

  it("a failing batch leaves the run due: the loop retries later and the run goes on", async () => {
    const clock = new ManualClock(SWEEP - 10);
    const job = scripted([true, false], new Set([2]));
    const s = new ScheduledJob(daily, job.batch, clock, { batchPauseMs: 100 });
    expect(await s.step()).toBe(10);
    clock.advance(10);
    expect(await s.step()).toBe(100);
    await expect(s.step()).rejects.toThrow("batch 2 failed");
    clock.advance(5_000);
    expect(await s.step()).toBe(SWEEP + DAY - clock.now());
    expect(job.calls).toBe(3);
  });

  it("ends a run after maxBatchesPerRun even if more is due; the next run goes on", async () => {
    const clock = new ManualClock(T0);
    const job = scripted([true, true, true, true, true]);
    const s = new ScheduledJob({ kind: "every", everyMs: HOUR }, job.batch, clock, { batchPauseMs: 0, maxBatchesPerRun: 2 });
    expect(await s.step()).toBe(0);
    expect(await s.step()).toBe(HOUR);
    expect(job.calls).toBe(2);
    clock.advance(HOUR);
    expect(await s.step()).toBe(0);
    expect(job.calls).toBe(3);
  });

  it("every: first run after the initial delay, the next one everyMs after a run ends", async () => {
    const clock = new ManualClock(T0);
    const job = scripted([false, false]);
    const s = new ScheduledJob({ kind: "every", everyMs: 5 * MIN, initialDelayMs: MIN }, job.batch, clock);
    expect(await s.step()).toBe(MIN);
    clock.advance(MIN);
    expect(await s.step()).toBe(5 * MIN);
    clock.advance(2 * MIN);
    expect(await s.step()).toBe(3 * MIN);
    clock.advance(3 * MIN);
    expect(await s.step()).toBe(5 * MIN);
    expect(job.calls).toBe(2);
  });

  it("refuses a bad schedule at construction", () => {
    const clock = new ManualClock(T0);
    expect(() => new ScheduledJob({ kind: "daily", at: "3:30", utcOffsetMinutes: 480 }, async () => ({ more: false }), clock)).toThrow(RangeError);
    expect(() => new ScheduledJob({ kind: "daily", at: "03:30", utcOffsetMinutes: 1000 }, async () => ({ more: false }), clock)).toThrow(RangeError);
    expect(() => new ScheduledJob({ kind: "every", everyMs: 0 }, async () => ({ more: false }), clock)).toThrow(RangeError);
  });
});
