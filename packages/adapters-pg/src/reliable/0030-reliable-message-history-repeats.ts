import type { Migration } from "kysely";
import { historyRepeatsMigration } from "../migrations/history-repeats-ddl.js";

/**
 * A history row can stand for a run of identical outage rechecks (`collapsesInto` in
 * `@msgx/reliable`). In the `reliable-message` set as `0030_reliable_message_history_repeats`.
 */
export const reliableMessageHistoryRepeatsMigration = (schema: string): Migration => historyRepeatsMigration("reliable_message_history", schema);
