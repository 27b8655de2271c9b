import type { MigrationSet } from "../migrations/migrate.js";
import { taskRoutingMigration } from "./0006-task-routing.js";
import { taskRoutingServiceMigration } from "./0016-task-routing-service.js";
import { taskNumbersMigration } from "./0024-task-numbers.js";
import { taskOverdueMigration } from "./0027-task-overdue.js";
import { taskHistoryMigration } from "./0029-task-history.js";
import { taskHistoryRepeatsMigration } from "./0031-task-history-repeats.js";

/**
 * The task service's tables (seed 001; they write `msg_event`), for the database that hosts it:
 * `migrateToLatest(db, { modules: [TASK_ROUTING_MIGRATIONS] })`. The version names are the ones
 * databases migrated by 0.1.x hold (then part of the main entry's default list).
 */
export const TASK_ROUTING_MIGRATIONS: MigrationSet = {
  name: "task-routing",
  migrations: {
    "0006_task_routing": taskRoutingMigration,
    // FAILED, dispatch bookkeeping, watchdog alerts, the dispatch and purge probes, the replay audit.
    "0016_task_routing_service": taskRoutingServiceMigration,
    // taskNo and its per-day counter; the seed's start / end point and vehicle.
    "0024_task_numbers": taskNumbersMigration,
    // Deadlines and heartbeats: the task's timeouts, its last progress, the overdue marks and probes.
    "0027_task_overdue": taskOverdueMigration,
    // Each task's history (its lineage), one row per change.
    "0029_task_history": taskHistoryMigration,
    // A history row stands for a run of watchdog alerts.
    "0031_task_history_repeats": taskHistoryRepeatsMigration,
  },
};
