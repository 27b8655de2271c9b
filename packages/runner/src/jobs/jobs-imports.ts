/** The maintenance-job parts of the msgx packages the runner wires. */
export { HistorySweeper, SnapLogCleaner, ProcStateArchiver, DEFAULT_PROC_STATE_ARCHIVE_OPTIONS, Reconciler, ScheduledJob } from "@msgx/core";
export type { ReconcileCounts, JobSchedule, MaintenanceStore } from "@msgx/core";
export { PgMaintenanceStore } from "@msgx/adapters-pg";
