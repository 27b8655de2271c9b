import type { Clock } from "@msgx/core";
import type { SubscriptionDeliveryCounts } from "@msgx/reliable";
import { Gauge, type Registry } from "prom-client";
import { cachedCounts } from "../app/cached-counts.js";

/**
 * Registers `msgx_reliable_deliveries{queue, subscription, phase}`: the subscription deliveries of
 * the store by delivery phase (SENDING, DEAD, ACKNOWLEDGED), read at most every 15 s. A message with
 * a DEAD delivery is SENDING in `msgx_reliable_messages`, so this gauge is what shows (and alerts
 * on) a subscription's dead letter. A (queue, subscription) whose last delivery was purged leaves
 * the gauge; a store outage leaves the last values (msgx_status_up says they are stale).
 */
export function deliveryCountGauge(registry: Registry, clock: Clock, read: (() => Promise<readonly SubscriptionDeliveryCounts[]>) | undefined): void {
  const counts = read === undefined ? undefined : cachedCounts(read, clock);
  new Gauge({
    name: "msgx_reliable_deliveries",
    help: "Subscription deliveries by queue, subscription and phase (SENDING, DEAD, ACKNOWLEDGED; read from the store at most every 15 s): phase=DEAD is a subscription's dead letter, an operator must resend it",
    labelNames: ["queue", "subscription", "phase"],
    registers: [registry],
    async collect() {
      if (counts === undefined) return;
      try {
        const rows = await counts();
        this.reset();
        for (const { queue, subscription, phases } of rows) {
          for (const [phase, n] of Object.entries(phases)) this.set({ queue, subscription, phase }, n);
        }
      } catch {
        // The last values stay.
      }
    },
  });
}
