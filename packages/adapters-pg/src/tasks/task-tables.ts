import type { ColumnType, Generated } from "kysely";
import type { Int8, Jsonb, Timestamp } from "../rows/column-types.js";

/** A counter column with a default of 0. */
type Count = ColumnType<number, number | undefined, number>;

/** `task_task` (migrations `taskRoutingMigration`, then `taskRoutingServiceMigration`). */
export interface TaskTaskTable {
  task_id: string;
  /** `T` + day + sequence (migration `0024_task_numbers`). */
  task_no: string;
  owner_service: string;
  handler_code: string;
  biz_type: string;
  biz_id: string;
  external_system: string;
  external_task_type: string | null;
  external_task_no: string | null;
  start_point_code: string | null;
  end_point_code: string | null;
  vehicle_code: string | null;
  payload: Jsonb;
  /** A `TaskStatus` of core. */
  status: string;
  version: number;
  last_event_id: string | null;
  status_reason: string | null;
  callback_error: string | null;
  dispatch_attempts: Count;
  next_dispatch_at: Timestamp | null;
  dispatch_error: string | null;
  callback_alerts: Count;
  callback_alert_at: Timestamp | null;
  /** Deadlines and heartbeats (migration `0027_task_overdue`). */
  deadline_ms: Int8 | null;
  heartbeat_ms: Int8 | null;
  deadline_at: Timestamp | null;
  last_progress_at: Timestamp | null;
  /** `last_progress_at + heartbeat_ms`, written by the store for the heartbeat probe's index. */
  heartbeat_due_at: Timestamp | null;
  deadline_overdue_at: Timestamp | null;
  heartbeat_overdue_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** `task_feedback`: the external system's reports, unique by (task, external event, status). */
export interface TaskFeedbackTable {
  feedback_id: Generated<Int8>;
  task_id: string;
  external_event_id: string;
  status: string;
  outcome: string;
  reason: string | null;
  event_id: string | null;
  received_at: Timestamp;
}

/** `task_callback`: every callback an owner sent, repeats included. */
export interface TaskCallbackTable {
  callback_id: Generated<Int8>;
  task_id: string;
  event_id: string;
  result: string;
  message: string | null;
  outcome: string;
  reason: string | null;
  received_at: Timestamp;
}

/** `task_no_seq`: the last task number given out per day (`yyyyMMdd`). */
export interface TaskNoSeqTable {
  day: string;
  last_seq: number;
}

/** `task_replay`: the audit of an operator's replay. */
export interface TaskReplayTable {
  replay_id: string;
  replayed_by: string;
  reason: string;
  filter: Jsonb;
  task_ids: Jsonb;
  replayed_at: Timestamp;
}

/** `task_event_consume_log`, in an owner service's own database (`taskConsumeLogMigration`). */
export interface TaskEventConsumeLogTable {
  event_id: string;
  task_id: string;
  owner_service: string;
  handler_code: string;
  event_type: string;
  /** SUCCEEDED, FAILED or DEAD. */
  status: string;
  error_msg: string | null;
  attempts: Count;
  next_attempt_at: Timestamp | null;
  payload: Jsonb | null;
  delivery_event_id: string | null;
  /** PENDING, SENT, REJECTED or NULL (no callback). */
  callback_status: string | null;
  callback_attempts: Count;
  callback_next_at: Timestamp | null;
  callback_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The task service's tables in msgx's database (its task events go to `msg_event`). */
export interface TaskRoutingDatabase {
  task_task: TaskTaskTable;
  task_feedback: TaskFeedbackTable;
  task_callback: TaskCallbackTable;
  task_replay: TaskReplayTable;
  task_no_seq: TaskNoSeqTable;
}

/**
 * The least an owner service's database holds for `PgTaskConsumeLogStore`: its own tables come on
 * top (the store speaks raw SQL, so a `Kysely` of any schema works).
 */
export interface TaskConsumeLogDatabase {
  task_event_consume_log: TaskEventConsumeLogTable;
}
