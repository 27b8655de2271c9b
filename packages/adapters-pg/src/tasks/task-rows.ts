import type { TaskCallbackEntry, TaskConsumeLogEntry, TaskFeedbackEntry, TaskRecord, TaskReplayEntry } from "@msgx/tasks";
import type { DriverRow } from "../rows/column-types.js";
import { toMs, toMsOrNull, toNumber } from "../rows/values.js";
import type { TaskCallbackTable, TaskEventConsumeLogTable, TaskFeedbackTable, TaskReplayTable, TaskTaskTable } from "./task-tables.js";

/** `task_task` as the driver returns it. */
export type TaskRow = DriverRow<Omit<TaskTaskTable, "heartbeat_due_at">>;

export const TASK_COLUMNS = `task_id, task_no, start_point_code, end_point_code, vehicle_code, owner_service, handler_code, biz_type, biz_id, external_system, external_task_type,
  external_task_no, payload, status, version, last_event_id, status_reason, callback_error, dispatch_attempts,
  next_dispatch_at, dispatch_error, callback_alerts, callback_alert_at, deadline_ms, heartbeat_ms, deadline_at, last_progress_at,
  deadline_overdue_at, heartbeat_overdue_at, created_at, updated_at`;

export const taskFromRow = (r: TaskRow): TaskRecord => ({
  taskId: r.task_id,
  taskNo: r.task_no,
  ownerService: r.owner_service,
  handlerCode: r.handler_code,
  bizType: r.biz_type,
  bizId: r.biz_id,
  externalSystem: r.external_system,
  externalTaskType: r.external_task_type,
  externalTaskNo: r.external_task_no,
  startPointCode: r.start_point_code,
  endPointCode: r.end_point_code,
  vehicleCode: r.vehicle_code,
  payload: r.payload as TaskRecord["payload"],
  status: r.status as TaskRecord["status"],
  version: toNumber(r.version),
  lastEventId: r.last_event_id,
  statusReason: r.status_reason,
  callbackError: r.callback_error,
  dispatchAttempts: toNumber(r.dispatch_attempts),
  nextDispatchAt: toMsOrNull(r.next_dispatch_at),
  dispatchError: r.dispatch_error,
  callbackAlerts: toNumber(r.callback_alerts),
  callbackAlertAt: toMsOrNull(r.callback_alert_at),
  deadlineMs: r.deadline_ms === null ? null : toNumber(r.deadline_ms),
  heartbeatMs: r.heartbeat_ms === null ? null : toNumber(r.heartbeat_ms),
  deadlineAt: toMsOrNull(r.deadline_at),
  lastProgressAt: toMsOrNull(r.last_progress_at),
  deadlineOverdueAt: toMsOrNull(r.deadline_overdue_at),
  heartbeatOverdueAt: toMsOrNull(r.heartbeat_overdue_at),
  createdAt: toMs(r.created_at),
  updatedAt: toMs(r.updated_at),
});

/** `task_replay` as the driver returns it. */
export type ReplayRow = DriverRow<TaskReplayTable>;

export const REPLAY_COLUMNS = "replay_id, replayed_by, reason, filter, task_ids, replayed_at";

export const replayFromRow = (r: ReplayRow): TaskReplayEntry => ({
  replayId: r.replay_id,
  by: r.replayed_by,
  reason: r.reason,
  filter: r.filter as TaskReplayEntry["filter"],
  taskIds: r.task_ids as TaskReplayEntry["taskIds"],
  at: toMs(r.replayed_at),
});

export type FeedbackRow = DriverRow<Omit<TaskFeedbackTable, "feedback_id">>;

export const FEEDBACK_COLUMNS = "task_id, external_event_id, status, outcome, reason, event_id, received_at";

export const feedbackFromRow = (r: FeedbackRow): TaskFeedbackEntry => ({
  taskId: r.task_id,
  externalEventId: r.external_event_id,
  status: r.status as TaskFeedbackEntry["status"],
  outcome: r.outcome as TaskFeedbackEntry["outcome"],
  reason: r.reason,
  eventId: r.event_id,
  receivedAt: toMs(r.received_at),
});

export type CallbackRow = DriverRow<Omit<TaskCallbackTable, "callback_id">>;

export const CALLBACK_COLUMNS = "task_id, event_id, result, message, outcome, reason, received_at";

export const callbackFromRow = (r: CallbackRow): TaskCallbackEntry => ({
  taskId: r.task_id,
  eventId: r.event_id,
  result: r.result as TaskCallbackEntry["result"],
  message: r.message,
  outcome: r.outcome as TaskCallbackEntry["outcome"],
  reason: r.reason,
  receivedAt: toMs(r.received_at),
});

/** `task_event_consume_log` as the driver returns it. */
export type ConsumeRow = DriverRow<TaskEventConsumeLogTable>;

export const CONSUME_COLUMNS = `event_id, task_id, owner_service, handler_code, event_type, status, error_msg, attempts,
  next_attempt_at, payload, delivery_event_id, callback_status, callback_attempts, callback_next_at, callback_error,
  created_at, updated_at`;

export const consumeFromRow = (r: ConsumeRow): TaskConsumeLogEntry => ({
  eventId: r.event_id,
  taskId: r.task_id,
  ownerService: r.owner_service,
  handlerCode: r.handler_code,
  eventType: r.event_type,
  status: r.status as TaskConsumeLogEntry["status"],
  errorMsg: r.error_msg,
  attempts: toNumber(r.attempts),
  nextAttemptAt: toMsOrNull(r.next_attempt_at),
  // jsonb arrives parsed (a JSON string value as a JS string): no second parse here.
  payload: r.payload === undefined ? null : r.payload,
  deliveryEventId: r.delivery_event_id,
  callbackStatus: r.callback_status as TaskConsumeLogEntry["callbackStatus"],
  callbackAttempts: toNumber(r.callback_attempts),
  callbackNextAt: toMsOrNull(r.callback_next_at),
  callbackError: r.callback_error,
  createdAt: toMs(r.created_at),
  updatedAt: toMs(r.updated_at),
});

/** An epoch-ms instant as a bind parameter (a Date: exact to the millisecond). */
export const at = (ms: number): Date => new Date(ms);
export const atOrNull = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** A jsonb bind parameter (cast with `::jsonb` in the statement). */
export const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);
