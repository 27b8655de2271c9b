import { TASK_CALLBACK_RECORD_OUTCOMES, TASK_OVERDUE_REASONS, TASK_STATUSES, type TaskCallbackRecordOutcome, type TaskOverdueReason } from "@msgx/tasks";
import { type Clock } from "@msgx/core";
import { Counter, Registry } from "prom-client";
import { STORE_COUNT_CACHE_MS, storeCountGauge, type CountReader } from "../app/cached-counts.js";
import type { DispatchCallOutcome } from "./http-task-dispatcher.js";

/** What the status gauge reads: the number of stored tasks per status. */
export type TaskStatusCounter = CountReader;

/** The status gauge reads the store at most this often. */
export const TASK_COUNT_CACHE_MS = STORE_COUNT_CACHE_MS;

const DISPATCH_OUTCOMES: readonly DispatchCallOutcome[] = ["accepted", "refused", "failed", "outage", "cancelled", "too-late", "cancel-failed"];

/**
 * The task service's metrics (docs/operations.md). Every label has a bounded set of values —
 * statuses, call outcomes — never an owner or task id. The status gauge is read from the store
 * (true for the whole database) at most every {@link TASK_COUNT_CACHE_MS}; the counters count what
 * this process did.
 */
export function createTaskMetrics(clock: Clock, countByStatus?: TaskStatusCounter, countOverdue?: CountReader) {
  const registry = new Registry();
  storeCountGauge(registry, clock, {
    name: "msgx_tasks",
    help: "Stored tasks by status (read from the store at most every 15 s)",
    label: "status",
    read: countByStatus,
    values: TASK_STATUSES,
  });
  storeCountGauge(registry, clock, {
    name: "msgx_tasks_overdue",
    help: "DISPATCHED / EXECUTING tasks reported overdue now, by reason (read from the store at most every 15 s)",
    label: "reason",
    read: countOverdue,
    values: TASK_OVERDUE_REASONS,
  });
  const dispatches = new Counter({
    name: "msgx_task_dispatch_total",
    help: "Calls to the executing system by outcome: accepted, refused, failed, outage (dispatch); cancelled, too-late, cancel-failed (cancel)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const alerts = new Counter({ name: "msgx_task_callbacks_pending_alerts_total", help: "Watchdog alerts: a task pending its owner's callback too long (its event sent again)", registers: [registry] });
  const replays = new Counter({ name: "msgx_task_replays_total", help: "Task events replayed (dead at the owner, sent again by an operator)", registers: [registry] });
  const failed = new Counter({ name: "msgx_task_failed_total", help: "Tasks this process moved to FAILED (the executing system refused the dispatch for good)", registers: [registry] });
  const callbackRecords = new Counter({
    name: "msgx_task_callback_records_total",
    help: "Records taken from the callback result topic by outcome: applied, malformed (skipped), unknown-task (404, skipped), rejected (409, skipped)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const overdue = new Counter({
    name: "msgx_task_overdue_total",
    help: "TASK_OVERDUE events this process published, by reason: DEADLINE (past its deadline from dispatch), HEARTBEAT (no progress report within its heartbeat timeout)",
    labelNames: ["reason"],
    registers: [registry],
  });
  // Every series exists from the first scrape, so a rate() over them starts at 0 rather than absent.
  for (const outcome of DISPATCH_OUTCOMES) dispatches.inc({ outcome }, 0);
  for (const outcome of TASK_CALLBACK_RECORD_OUTCOMES) callbackRecords.inc({ outcome }, 0);
  for (const reason of TASK_OVERDUE_REASONS) overdue.inc({ reason }, 0);
  return {
    dispatch(outcome: DispatchCallOutcome): void {
      dispatches.inc({ outcome });
    },
    pendingAlerts(n = 1): void {
      if (n > 0) alerts.inc(n);
    },
    replayed(n = 1): void {
      if (n > 0) replays.inc(n);
    },
    callbackRecord(outcome: TaskCallbackRecordOutcome): void {
      callbackRecords.inc({ outcome });
    },
    overdue(reason: TaskOverdueReason, n = 1): void {
      if (n > 0) overdue.inc({ reason }, n);
    },
    failed(n = 1): void {
      if (n > 0) failed.inc(n);
    },
    async render(): Promise<string> {
      return registry.metrics();
    },
  };
}

export type TaskMetrics = ReturnType<typeof createTaskMetrics>;
