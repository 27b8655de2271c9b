import { HistorySweeper, ProcStateArchiver, Reconciler, ScheduledJob, SnapLogCleaner, type JobSchedule, type MaintenanceStore, type ReconcileCounts, type RouterStep, WAKE_EDGES } from "@msgx/core";
import { type ReliableMessageService } from "@msgx/reliable";
import { type TaskStore } from "@msgx/tasks";
import type { StepContext } from "../app/step-context.js";

/** The fixed parts of the schedule (the daily time, retentions and offsets are settings). */
export const MAINTENANCE_SCHEDULE = {
  /** The PROC_STATE archive runs hourly, the first time a minute after start. */
  archiveEveryMs: 3_600_000,
  archiveFirstAfterMs: 60_000,
  /** The reconciler passes over its window every 5 minutes, the first time 30 s after start. */
  reconcileEveryMs: 5 * 60_000,
  reconcileFirstAfterMs: 30_000,
  /** The pause between two batches of one run: room for the pump between lock holds. */
  batchPauseMs: 200,
  /** Finished reliable messages and tasks are purged every 10 minutes, the first time 2 minutes after start, 1,000 per batch. */
  retentionEveryMs: 10 * 60_000,
  retentionFirstAfterMs: 2 * 60_000,
  retentionBatch: 1_000,
} as const;

/** The maintenance jobs as router steps, and what the metrics will read from them. */
export interface MaintenanceJobs {
  readonly steps: readonly RouterStep[];
  /** The reconciler's last full pass; undefined when it is off or has not finished one yet. */
  reconcilerCounts(): ReconcileCounts | undefined;
  /** The store the jobs work on (the admin API reads `SCHD_SNAP_LOG` through it). */
  readonly store: MaintenanceStore;
}

export interface MaintenanceJobsOptions {
  /** The store the jobs work on. Default: `ctx.parts.maintenance` (tests pass a fake). */
  readonly store?: MaintenanceStore;
  /** The hosted reliable-message service, whose finished messages the `reliable-retention` job purges; absent = no such job. */
  readonly reliable?: Pick<ReliableMessageService, "purgeFinished">;
  /** The hosted task service's store, whose final tasks the `task-retention` job purges; absent = no such job. */
  readonly tasks?: Pick<TaskStore, "purgeFinished">;
}

/**
 * The four jobs of SPEC §2.7 on their own schedules, each a router step that runs at most one
 * bounded batch and returns when it wants to be called again:
 * - `history-sweep`: daily at `history.sweepAt` airport time; batches under the pipeline lock and
 *   fence; wakes delivery after writing tombstones (the `outbox` wake edge).
 * - `snap-log-cleanup`: in the same window; `SCHD_SNAP_LOG` older than `history.snapLogRetentionDays`.
 * - `proc-state-archive`: hourly; terminal records older than 7 days (`DEFAULT_PROC_STATE_ARCHIVE_OPTIONS`).
 * - `reconciler`: every 5 minutes over the newest 10,000 ids; off in shadow mode (we do not own
 *   `DATE_PROCESSED` there), and its "processed without a terminal record" check is off when the
 *   mailbox filters by STATUS (a filtered row reads as not pending too).
 * - `reliable-retention` (with `options.reliable`): every 10 minutes, ACKNOWLEDGED and CANCELLED
 *   reliable messages last changed more than `reliable.retention.finishedMs` ago, in batches;
 *   their ids may be prepared again afterwards (docs/reliable-message.md).
 * - `task-retention` (with `options.tasks`): every 10 minutes, FINISHED, CANCELLED and FAILED tasks
 *   last changed more than `tasks.retention.finishedMs` ago, with their feedback and callback
 *   logs, in batches (docs/task-routing.md).
 */
export function createMaintenanceJobs(ctx: StepContext, options: MaintenanceJobsOptions = {}): MaintenanceJobs {
  const { parts, config, clock, logger } = ctx;
  const store = options.store ?? parts.maintenance;
  const fence = parts.fence === undefined ? {} : { fence: parts.fence };
  const deps = { store, pipeline: parts.store, clock, logger, ...fence };
  const daily: JobSchedule = { kind: "daily", at: config.history.sweepAt, utcOffsetMinutes: config.airport.utcOffsetMinutes };
  const job = <B extends { readonly more: boolean }>(
    name: string,
    schedule: JobSchedule,
    batch: (signal?: AbortSignal) => Promise<B>,
    wakes: (batch: B) => readonly string[] = () => [],
  ): RouterStep => {
    let wake: readonly string[] = [];
    const scheduled = new ScheduledJob(
      schedule,
      async (signal) => {
        const b = await batch(signal);
        wake = wakes(b);
        return b;
      },
      clock,
      { batchPauseMs: MAINTENANCE_SCHEDULE.batchPauseMs },
    );
    return {
      name,
      run: async (signal) => {
        wake = [];
        const after = await scheduled.step(signal);
        return { after, wake };
      },
    };
  };

  const sweeper = new HistorySweeper(deps, {
    retentionDays: config.history.retentionDays,
    airportUtcOffsetMinutes: config.airport.utcOffsetMinutes,
    dayStartOffsetMinutes: config.airport.dayStartOffsetMinutes,
  });
  const cleaner = new SnapLogCleaner(deps, { retentionDays: config.history.snapLogRetentionDays });
  const archiver = new ProcStateArchiver(deps);
  const reconciler = config.shadow
    ? undefined
    : new Reconciler({ ...deps, mailbox: parts.mailbox }, { checkProcessed: !config.mysql.onlyValidStatus });

  const steps: RouterStep[] = [
    job(
      "history-sweep",
      daily,
      () => sweeper.step(),
      (batch) => (batch.tombstones > 0 ? WAKE_EDGES.outbox : []),
    ),
    job("snap-log-cleanup", daily, () => cleaner.step()),
    job("proc-state-archive", { kind: "every", everyMs: MAINTENANCE_SCHEDULE.archiveEveryMs, initialDelayMs: MAINTENANCE_SCHEDULE.archiveFirstAfterMs }, () =>
      archiver.step(),
    ),
  ];
  /** A retention job: what `purge` removes once it is `keepMs` old, in batches until a short one. */
  const retention = (name: string, purge: (before: number, limit: number) => Promise<number>, keepMs: number): RouterStep => {
    const { retentionBatch: limit } = MAINTENANCE_SCHEDULE;
    return job(name, { kind: "every", everyMs: MAINTENANCE_SCHEDULE.retentionEveryMs, initialDelayMs: MAINTENANCE_SCHEDULE.retentionFirstAfterMs }, async () => {
      const purged = await purge(clock.now() - keepMs, limit);
      return { purged, more: purged === limit };
    });
  };
  const { reliable, tasks } = options;
  if (reliable) steps.push(retention("reliable-retention", (before, limit) => reliable.purgeFinished(before, limit), config.reliable.retention.finishedMs));
  if (tasks) steps.push(retention("task-retention", (before, limit) => tasks.purgeFinished(before, limit), config.tasks.retention.finishedMs));
  if (reconciler) {
    steps.push(
      job("reconciler", { kind: "every", everyMs: MAINTENANCE_SCHEDULE.reconcileEveryMs, initialDelayMs: MAINTENANCE_SCHEDULE.reconcileFirstAfterMs }, (signal) =>
        reconciler.step(signal),
      ),
    );
  }
  logger.info("maintenance jobs scheduled", {
    historySweepAt: config.history.sweepAt,
    utcOffsetMinutes: config.airport.utcOffsetMinutes,
    loops: steps.map((l) => l.name),
  });
  return { steps, reconcilerCounts: () => reconciler?.lastPass, store };
}
