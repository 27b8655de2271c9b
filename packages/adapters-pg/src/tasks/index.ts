/**
 * `@msgx/adapters-pg/tasks`: the PostgreSQL stores of task-event routing (`@msgx/tasks`, an optional
 * peer: only a project that imports this subpath needs it). Their tables come with
 * `TASK_ROUTING_MIGRATIONS`, a set the main entry's `migrateToLatest` applies when named in `modules`.
 */
export { PgTaskStore, type PgTaskStoreOptions } from "./pg-task-store.js";
export { PgTaskConsumeLogStore, TASK_CONSUME_LOCK_CLASS, type PgTaskConsumeLogStoreOptions } from "./pg-task-consume-log-store.js";
export type {
  TaskTaskTable,
  TaskFeedbackTable,
  TaskCallbackTable,
  TaskReplayTable,
  TaskNoSeqTable,
  TaskEventConsumeLogTable,
  TaskRoutingDatabase,
  TaskConsumeLogDatabase,
} from "./task-tables.js";

// The task service's migrations (its database) and the consumer-side log's, which lives in a
// consumer's own database.
export { TASK_ROUTING_MIGRATIONS } from "./task-routing-migrations.js";
export { taskRoutingMigration, taskConsumeLogMigration } from "./0006-task-routing.js";
export { taskRoutingServiceMigration } from "./0016-task-routing-service.js";
export { taskNumbersMigration } from "./0024-task-numbers.js";
export { taskOverdueMigration } from "./0027-task-overdue.js";
export { taskHistoryMigration } from "./0029-task-history.js";
export { taskHistoryRepeatsMigration } from "./0031-task-history-repeats.js";
export { taskConsumeLogPurgeMigration } from "./0017-task-consume-log-purge.js";
