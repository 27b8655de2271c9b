/**
 * `@msgx/adapters-pg/tasks`: the PostgreSQL stores of task-event routing (`@msgx/tasks`, an optional
 * peer: only a project that imports this subpath needs it). The tables come with the `task-routing`
 * migration module of the main entry's `migrateToLatest`.
 */
export { PgTaskStore, type PgTaskStoreOptions } from "./pg-task-store.js";
export { PgTaskConsumeLogStore, TASK_CONSUME_LOCK_CLASS, type PgTaskConsumeLogStoreOptions } from "./pg-task-consume-log-store.js";
export type {
  TaskTaskTable,
  TaskFeedbackTable,
  TaskCallbackTable,
  TaskReplayTable,
  TaskEventConsumeLogTable,
  TaskRoutingDatabase,
  TaskConsumeLogDatabase,
} from "./task-tables.js";

// The task service's migrations (its database: also in the main entry's `migrateToLatest`, module
// `task-routing`) and the consumer-side log's, which lives in a consumer's own database.
export { taskRoutingMigration, taskConsumeLogMigration } from "../migrations/0006-task-routing.js";
export { taskRoutingServiceMigration } from "../migrations/0016-task-routing-service.js";
export { taskConsumeLogPurgeMigration } from "../migrations/0017-task-consume-log-purge.js";
