import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { typeOutcomeOf, type Clock, type ErrorClass, type LeaderMemorySizes, type ProcRecord, type PumpSpeculations, type ProcStatus, type ReconcileCounts, type StatusReader } from "@msgx/core";

/**
 * Prometheus metrics. Gauges are read from the store at scrape time (one status query), so they
 * are true for the whole database, not just this process; counters and the histogram count what
 * this process did. The reconciler's gauges show its last full pass in this process (absent until
 * one finished, or when it is off).
 */
export function createMetrics(
  status: StatusReader,
  clock: Clock,
  reconciler: () => ReconcileCounts | undefined = () => undefined,
  /** TYPEs that may be a label (the kinds table, reference types, the configured policy); any other is `other`. */
  knownTypes: ReadonlySet<string> = new Set(),
) {
  const registry = new Registry();
  const processed = new Counter({ name: "msgx_messages_processed_total", help: "Messages that reached a terminal state or FAILED, by status and class", labelNames: ["status", "error_class"], registers: [registry] });
  const latency = new Histogram({
    name: "msgx_processing_latency_seconds",
    help: "From mailbox receipt to the processing commit",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const warnings = new Counter({ name: "msgx_message_warnings_total", help: "Warnings of processed messages (ffid-mismatch, content-differs, recs-mismatch, …), by code", labelNames: ["code"], registers: [registry] });
  const ignored = new Counter({ name: "msgx_messages_ignored_total", help: "Messages SKIPPED ignored:<TYPE> by the type policy, by TYPE (unknown TYPEs as other)", labelNames: ["type"], registers: [registry] });
  const unsupported = new Counter({
    name: "msgx_messages_unsupported_total",
    help: "UNSUPPORTED outcomes by TYPE (unknown TYPEs as other): failed (an attempt, FAILED), exhausted (DEAD), skipped (unsupported: skip)",
    labelNames: ["type", "outcome"],
    registers: [registry],
  });
  let leaderMemory: (() => LeaderMemorySizes) | undefined;
  new Gauge({
    name: "msgx_leader_memory_entries",
    help: "Entries the leader holds in memory to decide runs from, by kind (flights, identities)",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const sizes = leaderMemory?.();
      if (sizes === undefined) return;
      this.set({ kind: "flights" }, sizes.flights);
      this.set({ kind: "identities" }, sizes.identities);
    },
  });
  let speculations: (() => PumpSpeculations) | undefined;
  const counted: Record<keyof PumpSpeculations, number> = { started: 0, decided: 0, read: 0, discarded: 0 };
  new Counter({
    name: "msgx_pump_speculations_total",
    help: "Pipelined steps: runs read and decided behind the committing one (started), and what the next step did with them: committed the decision (decided), kept only the read (read), or threw it away (discarded)",
    labelNames: ["result"],
    registers: [registry],
    collect() {
      const now = speculations?.();
      if (now === undefined) return;
      for (const result of Object.keys(counted) as (keyof PumpSpeculations)[]) {
        // The pump's counts only grow; a new pump (a restart of the router) starts again from zero.
        const delta = now[result] >= counted[result] ? now[result] - counted[result] : now[result];
        this.inc({ result }, delta);
        counted[result] = now[result];
      }
    },
  });
  const typeLabel = (type: string): string => (knownTypes.has(type) ? type : "other");
  const headAge = new Gauge({ name: "msgx_head_age_seconds", help: "Age of the oldest unfinished message (0 when none)", registers: [registry] });
  const backlog = new Gauge({ name: "msgx_backlog", help: "Messages by processing status", labelNames: ["status"], registers: [registry] });
  const dead = new Gauge({ name: "msgx_dead_letters", help: "DEAD messages kept for review", registers: [registry] });
  const debt = new Gauge({ name: "msgx_backfill_debt", help: "Mailbox backfills not done yet", registers: [registry] });
  const debtAge = new Gauge({ name: "msgx_backfill_oldest_age_seconds", help: "Age of the oldest mailbox backfill not done yet, from its commit (0 when none)", registers: [registry] });
  const lag = new Gauge({ name: "msgx_delivery_lag_seconds", help: "Age of the oldest pending event per target", labelNames: ["target"], registers: [registry] });
  const pending = new Gauge({ name: "msgx_delivery_pending", help: "Pending events per target", labelNames: ["target"], registers: [registry] });
  const deadEvents = new Gauge({ name: "msgx_delivery_dead", help: "DEAD events per target", labelNames: ["target"], registers: [registry] });
  const up = new Gauge({ name: "msgx_status_up", help: "1 when the last status query succeeded", registers: [registry] });
  const reconcileGauges = () => ({
    processedWithoutTerminal: new Gauge({
      name: "msgx_reconcile_processed_without_terminal",
      help: "Mailbox rows marked processed without a terminal record, in the reconciler's last full pass",
      registers: [registry],
    }),
    backfillMissing: new Gauge({
      name: "msgx_reconcile_backfill_missing",
      help: "Terminal records whose mailbox backfill never happened, in the reconciler's last full pass (their todos were registered again)",
      registers: [registry],
    }),
    lastPass: new Gauge({ name: "msgx_reconcile_last_pass_timestamp_seconds", help: "When the reconciler's last full pass finished", registers: [registry] }),
  });
  let reconcile: ReturnType<typeof reconcileGauges> | undefined;
  /** Targets the delivery gauges have shown: the status lists a target only while it has PENDING or DEAD events. */
  const targets = new Set<string>();

  return {
    /** Where `msgx_leader_memory_entries` is read from at scrape time (the pump's memory). */
    watchLeaderMemory(sizes: () => LeaderMemorySizes): void {
      leaderMemory = sizes;
    },
    /** Where `msgx_pump_speculations_total` is read from at scrape time (the pump's pipelined steps). */
    watchSpeculations(counts: () => PumpSpeculations): void {
      speculations = counts;
    },
    recordProcessed(records: readonly { status: ProcStatus; errorClass: ErrorClass | null; latencyMs: number }[]): void {
      for (const r of records) {
        processed.inc({ status: r.status, error_class: r.errorClass ?? "" });
        if (r.status !== "FAILED") latency.observe(Math.max(0, r.latencyMs) / 1000);
      }
    },
    recordWarnings(codes: readonly { code: string }[]): void {
      for (const w of codes) warnings.inc({ code: w.code });
    },
    /** Counts what the type policy did to the records of a step (WIRE.md: never silent). */
    recordTypeOutcomes(records: readonly ProcRecord[]): void {
      for (const r of records) {
        const found = typeOutcomeOf(r);
        if (found === undefined) continue;
        if (found.outcome === "ignored") ignored.inc({ type: typeLabel(found.type) });
        else unsupported.inc({ type: typeLabel(found.type), outcome: found.outcome.slice("unsupported-".length) });
      }
    },
    async render(): Promise<{ contentType: string; body: string }> {
      try {
        const s = await status.status();
        const now = clock.now();
        headAge.set(s.head ? Math.max(0, now - s.head.receivedAt) / 1000 : 0);
        for (const [k, v] of Object.entries(s.byStatus)) backlog.set({ status: k }, v);
        dead.set(s.deadLetters);
        debt.set(s.backfillDebt);
        debtAge.set(s.oldestBackfillAt === null ? 0 : Math.max(0, now - s.oldestBackfillAt) / 1000);
        for (const [target, d] of Object.entries(s.delivery)) {
          targets.add(target);
          pending.set({ target }, d.pending);
          deadEvents.set({ target }, d.dead);
          lag.set({ target }, d.oldestPendingAt === null ? 0 : Math.max(0, now - d.oldestPendingAt) / 1000);
        }
        // A target whose events are all sent again reads 0, not the lag it had when last listed:
        // a delivery-lag alert must resolve once the broker has taken everything.
        for (const target of targets) {
          if (s.delivery[target] !== undefined) continue;
          pending.set({ target }, 0);
          deadEvents.set({ target }, 0);
          lag.set({ target }, 0);
        }
        up.set(1);
      } catch {
        up.set(0);
      }
      const counts = reconciler();
      if (counts !== undefined) {
        reconcile ??= reconcileGauges();
        reconcile.processedWithoutTerminal.set(counts.processedWithoutTerminal);
        reconcile.backfillMissing.set(counts.backfillMissing);
        reconcile.lastPass.set(counts.finishedAt / 1000);
      }
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
