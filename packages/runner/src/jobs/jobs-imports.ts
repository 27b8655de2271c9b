/**
 * The maintenance-job parts of the msgx packages the runner wires. They are imported from the
 * package sources until the barrels of `@msgx/core` and `@msgx/adapters-pg` export them; then this
 * file becomes plain re-exports of those packages (nothing else in the runner changes).
 */
export { HistorySweeper } from "../../../core/src/jobs/history-sweeper.js";
export { SnapLogCleaner } from "../../../core/src/jobs/snap-log-cleaner.js";
export { ProcStateArchiver, DEFAULT_PROC_STATE_ARCHIVE_OPTIONS } from "../../../core/src/jobs/proc-state-archiver.js";
export { Reconciler, type ReconcileCounts } from "../../../core/src/jobs/reconciler.js";
export { ScheduledJob, type JobSchedule } from "../../../core/src/jobs/scheduled-job.js";
export type { MaintenanceStore } from "../../../core/src/jobs/maintenance-store.js";
export { PgMaintenanceStore } from "../../../adapters-pg/src/jobs/pg-maintenance-store.js";
