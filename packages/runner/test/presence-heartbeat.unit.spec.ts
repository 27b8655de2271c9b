/**
 * The runner's presence heartbeat and status sampler over the in-memory fakes: a standby's row from
 * the first beat, the leader's role and epoch at once on `lead`, the row deleted on stop; one
 * status sample per call, the next asked for 5 s into the next minute.
 */
import { RunnerRole, StatusSamples, type Logger, type PipelineStatus } from "@msgx/core";
import { InMemoryRunnerPresence, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { PRESENCE_STALE_MS, startPresenceHeartbeat } from "../src/app/presence-heartbeat.js";
import { statusSamplerStep } from "../src/app/status-sampler.js";
import { eventually } from "./runner-process.js";

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);

describe("startPresenceHeartbeat", () => {
  it("beats as a standby at once, as the leader with its epoch on lead, and deletes its row on stop", async () => {
    const presence = new InMemoryRunnerPresence(new ManualClock(T0));
    const heartbeat = startPresenceHeartbeat(presence, { role: RunnerRole.STANDBY, logger: new RecordingLogger() as Logger, startedAt: T0 - 1_000 });
    try {
      const first = await eventually(async () => (await presence.list({ staleAfterMs: PRESENCE_STALE_MS }))[0], 5_000, "the first beat");
      expect(first).toMatchObject({ runnerId: heartbeat.runnerId, pid: process.pid, role: "standby", epoch: null, startedAt: T0 - 1_000, stale: false });
      expect(heartbeat.runnerId).toContain(`/${process.pid}/`);
      heartbeat.lead(7);
      await eventually(async () => ((await presence.list({ staleAfterMs: PRESENCE_STALE_MS }))[0]?.role === "leader" ? true : undefined), 5_000, "the leader's beat");
      expect((await presence.list({ staleAfterMs: PRESENCE_STALE_MS }))[0]).toMatchObject({ role: "leader", epoch: 7 });
    } finally {
      await heartbeat.stop();
    }
    expect(await presence.list({ staleAfterMs: PRESENCE_STALE_MS })).toEqual([]);
  });
});

describe("statusSamplerStep", () => {
  it("records the gauges of one status read in the current minute and asks to run 5 s into the next", async () => {
    const clock = new ManualClock(T0 + 12_000);
    const samples = new StatusSamples();
    const status: PipelineStatus = {
      head: { msgId: 3, status: "PENDING", receivedAt: T0 + 2_000 },
      byStatus: { PENDING: 2, FAILED: 1, SUCCEEDED: 5, SKIPPED: 0, DEAD: 1 },
      deadLetters: 1,
      backfillDebt: 4,
      oldestBackfillAt: T0 + 1_000,
      delivery: { MSG: { pending: 1, oldestPendingAt: T0 + 7_000, dead: 0 } },
      horizon: 9,
    };
    const step = statusSamplerStep({ status: async () => status }, samples, clock);
    expect(await step.run(new AbortController().signal)).toEqual({ after: 48_000 + 5_000, wake: [] });
    expect(samples.at(T0)).toEqual({ backlog: 3, headAgeMs: 10_000, deliveryLagMs: 5_000, dead: 1, backfillDebt: 4 });
  });
});
