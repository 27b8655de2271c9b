import { MINUTE_MS, statusHistory, type Clock, type StatusSamples } from "@msgx/core";
import type { OpsReads } from "../http/http-context.js";
import type { AppParts } from "./app-parts.js";
import { PRESENCE_STALE_MS } from "./presence-heartbeat.js";

/**
 * The console's reads over the runner's parts: the runners by their heartbeats, the history (the
 * database's minute counts with this runner's sampled gauges), and the flight search.
 */
export function createOpsReads(parts: Pick<AppParts, "presence" | "throughput" | "flights">, samples: StatusSamples, clock: Clock): OpsReads {
  return {
    runners: () => parts.presence.list({ staleAfterMs: PRESENCE_STALE_MS }),
    async statusHistory(minutes) {
      const current = Math.floor(clock.now() / MINUTE_MS) * MINUTE_MS;
      return statusHistory(await parts.throughput.throughput(current - (minutes - 1) * MINUTE_MS, minutes), samples);
    },
    searchFlights: (query) => parts.flights.search(query),
    recentFlights: (limit) => parts.flights.recent(limit),
  };
}
