import type { Clock } from "@msgx/core";
import type { SubscriptionDeliveryCounts } from "@msgx/reliable";
import { Counter, Registry } from "prom-client";
import { storeCountGauge, type CountReader } from "../app/cached-counts.js";
import { deliveryCountGauge } from "./delivery-count-gauge.js";
import type { CheckerOutcome } from "./http-checker.js";

/** Why an alert was raised: an inconclusive check-back at or past `maxChecks`, or a message that went DEAD. */
export type ReliableAlertKind = "checkback" | "dead";

/** What the phase gauge reads: the number of stored messages per phase. */
export type PhaseCounter = CountReader;

/**
 * The reliable-message service's metrics (docs/operations.md). Every label has a bounded set of
 * values — phases, check-back outcomes, alert kinds, and for the delivery gauge the configured
 * queues with subscriptions and their subscriptions (at most `MAX_SUBSCRIPTIONS` each) — never a
 * message id. The phase and delivery gauges are read from the store (true for the whole database)
 * at most every 15 s, since finished messages stay for the retention window; the counters count
 * what this process did.
 */
export function createReliableMetrics(clock: Clock, countByPhase?: PhaseCounter, countHeld?: CountReader, countDeliveries?: () => Promise<readonly SubscriptionDeliveryCounts[]>) {
  const registry = new Registry();
  deliveryCountGauge(registry, clock, countDeliveries);
  storeCountGauge(registry, clock, {
    name: "msgx_reliable_held_messages",
    help: "Messages of queues ordered by key waiting for an older message of their key (read from the store at most every 15 s): behind=dead (an older one is DEAD: an operator must resend, acknowledge or delete it), behind=live",
    label: "behind",
    read: countHeld,
    values: ["dead", "live"],
  });
  storeCountGauge(registry, clock, {
    name: "msgx_reliable_messages",
    help: "Stored reliable messages by phase (WAITING_CONFIRM, REVIEW, SENDING, DEAD, ACKNOWLEDGED, CANCELLED; read from the store at most every 15 s)",
    label: "phase",
    read: countByPhase,
  });
  const checkbacks = new Counter({
    name: "msgx_reliable_checkbacks_total",
    help: "Check-back calls by outcome: confirm, cancel, unknown (the checker's verdicts), error, timeout, no-checker",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const alerts = new Counter({ name: "msgx_reliable_alerts_total", help: "Alerts raised (also logged at error): checkback (inconclusive past maxChecks), dead (a message went DEAD)", labelNames: ["kind"], registers: [registry] });
  const deadLetters = new Counter({ name: "msgx_reliable_dead_letters_total", help: "Messages this process moved to DEAD (and to the queue's dead-letter topic)", registers: [registry] });
  const rejects = new Counter({ name: "msgx_reliable_rejects_total", help: "Consumer rejects (a handler failed past its own retries) this process recorded", registers: [registry] });
  // Every series exists from the first scrape, so a rate() over them starts at 0 rather than absent.
  for (const outcome of ["confirm", "cancel", "unknown", "error", "timeout", "no-checker"]) checkbacks.inc({ outcome }, 0);
  for (const kind of ["checkback", "dead"]) alerts.inc({ kind }, 0);
  return {
    checkback(outcome: CheckerOutcome | "no-checker"): void {
      checkbacks.inc({ outcome });
    },
    alert(kind: ReliableAlertKind, n = 1): void {
      if (n > 0) alerts.inc({ kind }, n);
    },
    /** `n` messages went DEAD: a dead letter each, and an alert each. */
    dead(n = 1): void {
      if (n <= 0) return;
      deadLetters.inc(n);
      alerts.inc({ kind: "dead" }, n);
    },
    rejected(): void {
      rejects.inc();
    },
    async render(): Promise<string> {
      return registry.metrics();
    },
  };
}

export type ReliableMetrics = ReturnType<typeof createReliableMetrics>;
