import type { Migration } from "kysely";
import { historyRepeatsMigration } from "../migrations/history-repeats-ddl.js";

/**
 * A history row can stand for a run of watchdog alerts on a task pending its callback
 * (`taskEntryCollapsesInto` in `@msgx/tasks`). In the `task-routing` set as `0031_task_history_repeats`.
 */
export const taskHistoryRepeatsMigration = (schema: string): Migration => historyRepeatsMigration("task_history", schema);
