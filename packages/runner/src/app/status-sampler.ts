import { MINUTE_MS, statusGauges, StatusSamples, type Clock, type RouterStep, type StatusReader } from "@msgx/core";

/** The router step that samples the status. */
export const STATUS_SAMPLER_STEP = "status-sampler";

/**
 * Once a minute, the gauges of `GET /admin/status/history` (backlog, head age, delivery lag, dead,
 * backfill debt) from one status read, kept in `samples` (this runner's last day). The first
 * sample is taken at start, then a few seconds into each minute.
 */
export function statusSamplerStep(status: StatusReader, samples: StatusSamples, clock: Clock): RouterStep {
  return {
    name: STATUS_SAMPLER_STEP,
    async run() {
      const s = await status.status();
      const now = clock.now();
      samples.record(now, statusGauges(s, now));
      return { after: MINUTE_MS - (now % MINUTE_MS) + 5_000, wake: [] };
    },
  };
}
