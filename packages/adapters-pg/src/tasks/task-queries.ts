import { MsgxError } from "@msgx/core";
import { taskHeartbeatDueAt, type TaskCallbackEntry, type TaskConsumeLogEntry, type TaskConsumeLogFilter, type TaskConsumeLogWrite, type TaskFeedbackEntry, type TaskFeedbackKey, type TaskFilter, type TaskRecord, type TaskReplayEntry } from "@msgx/tasks";
import { sql, type QueryExecutorProvider } from "kysely";
import { at, atOrNull, CALLBACK_COLUMNS, callbackFromRow, REPLAY_COLUMNS, replayFromRow, type ReplayRow, CONSUME_COLUMNS, consumeFromRow, FEEDBACK_COLUMNS, feedbackFromRow, json, TASK_COLUMNS, taskFromRow, type CallbackRow, type ConsumeRow, type FeedbackRow, type TaskRow } from "./task-rows.js";

/** Stored tasks per status (statuses without tasks are absent). */
export async function countTasksByStatus(db: QueryExecutorProvider): Promise<{ status: string; n: number }[]> {
  const { rows } = await sql<{ status: string; n: unknown }>`SELECT status, count(*) AS n FROM task_task GROUP BY status`.execute(db);
  return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
}

/**
 * The next sequence number of `day`: the counter row is created or bumped in one statement, and
 * its row lock (held to COMMIT) makes a concurrent create of the same day wait and count on.
 */
export async function nextTaskSeq(db: QueryExecutorProvider, day: string): Promise<number> {
  const { rows } = await sql<{ last_seq: number }>`
    INSERT INTO task_no_seq AS s (day, last_seq) VALUES (${day}, 1)
    ON CONFLICT (day) DO UPDATE SET last_seq = s.last_seq + 1
    RETURNING last_seq`.execute(db);
  return Number(rows[0]!.last_seq);
}

/** Inserts the task unless its id is taken; true when it was inserted. A taken task number is a unique violation. */
export async function insertTask(db: QueryExecutorProvider, t: TaskRecord): Promise<boolean> {
  const { rows } = await sql<{ task_id: string }>`
    INSERT INTO task_task (task_id, task_no, start_point_code, end_point_code, vehicle_code, owner_service, handler_code, biz_type, biz_id, external_system, external_task_type,
                           external_task_no, payload, status, version, last_event_id, status_reason, callback_error,
                           dispatch_attempts, next_dispatch_at, dispatch_error, callback_alerts, callback_alert_at,
                           deadline_ms, heartbeat_ms, deadline_at, last_progress_at, heartbeat_due_at, deadline_overdue_at, heartbeat_overdue_at,
                           created_at, updated_at)
    VALUES (${t.taskId}, ${t.taskNo}, ${t.startPointCode}, ${t.endPointCode}, ${t.vehicleCode}, ${t.ownerService}, ${t.handlerCode}, ${t.bizType}, ${t.bizId}, ${t.externalSystem},
            ${t.externalTaskType}, ${t.externalTaskNo}, ${json(t.payload)}::jsonb, ${t.status}, ${t.version},
            ${t.lastEventId}, ${t.statusReason}, ${t.callbackError}, ${t.dispatchAttempts}, ${atOrNull(t.nextDispatchAt)},
            ${t.dispatchError}, ${t.callbackAlerts}, ${atOrNull(t.callbackAlertAt)},
            ${t.deadlineMs}, ${t.heartbeatMs}, ${atOrNull(t.deadlineAt)}, ${atOrNull(t.lastProgressAt)}, ${atOrNull(taskHeartbeatDueAt(t))},
            ${atOrNull(t.deadlineOverdueAt)}, ${atOrNull(t.heartbeatOverdueAt)}, ${at(t.createdAt)}, ${at(t.updatedAt)})
    ON CONFLICT (task_id) DO NOTHING
    RETURNING task_id`.execute(db);
  return rows.length === 1;
}

export async function getTask(db: QueryExecutorProvider, taskId: string): Promise<TaskRecord | undefined> {
  const { rows } = await sql<TaskRow>`SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE task_id = ${taskId}`.execute(db);
  return rows[0] === undefined ? undefined : taskFromRow(rows[0]);
}

export async function getTaskByNo(db: QueryExecutorProvider, taskNo: string): Promise<TaskRecord | undefined> {
  const { rows } = await sql<TaskRow>`SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE task_no = ${taskNo}`.execute(db);
  return rows[0] === undefined ? undefined : taskFromRow(rows[0]);
}

/** The task, row-locked until the transaction ends (`FOR UPDATE`). */
export async function lockTask(db: QueryExecutorProvider, taskId: string): Promise<TaskRecord | undefined> {
  const { rows } = await sql<TaskRow>`SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE task_id = ${taskId} FOR UPDATE`.execute(db);
  return rows[0] === undefined ? undefined : taskFromRow(rows[0]);
}

/**
 * Replaces the task whose stored version is `t.version - 1` (routing fields never change after
 * create). Zero rows means the task is missing or moved on: `CONFLICT`.
 */
export async function updateTask(db: QueryExecutorProvider, t: TaskRecord): Promise<void> {
  const { rows } = await sql<{ task_id: string }>`
    UPDATE task_task
    SET external_task_no = ${t.externalTaskNo}, payload = ${json(t.payload)}::jsonb, status = ${t.status},
        version = ${t.version}, last_event_id = ${t.lastEventId}, status_reason = ${t.statusReason},
        callback_error = ${t.callbackError}, dispatch_attempts = ${t.dispatchAttempts},
        next_dispatch_at = ${atOrNull(t.nextDispatchAt)}, dispatch_error = ${t.dispatchError},
        callback_alerts = ${t.callbackAlerts}, callback_alert_at = ${atOrNull(t.callbackAlertAt)},
        deadline_at = ${atOrNull(t.deadlineAt)}, last_progress_at = ${atOrNull(t.lastProgressAt)}, heartbeat_due_at = ${atOrNull(taskHeartbeatDueAt(t))},
        deadline_overdue_at = ${atOrNull(t.deadlineOverdueAt)}, heartbeat_overdue_at = ${atOrNull(t.heartbeatOverdueAt)}, updated_at = ${at(t.updatedAt)}
    WHERE task_id = ${t.taskId} AND version = ${t.version - 1}
    RETURNING task_id`.execute(db);
  if (rows.length !== 1) throw new MsgxError("CONFLICT", `task ${t.taskId}: stored version is not ${t.version - 1}`);
}

export async function listTasks(db: QueryExecutorProvider, f: TaskFilter): Promise<TaskRecord[]> {
  const where = [sql`true`];
  if (f.statuses !== undefined) where.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.ownerService !== undefined) where.push(sql`owner_service = ${f.ownerService}`);
  if (f.handlerCode !== undefined) where.push(sql`handler_code = ${f.handlerCode}`);
  if (f.taskIds !== undefined) where.push(sql`task_id = ANY(${[...f.taskIds]}::text[])`);
  if (f.callbackFailed !== undefined) where.push(f.callbackFailed ? sql`callback_error IS NOT NULL` : sql`callback_error IS NULL`);
  if (f.updatedBefore !== undefined) where.push(sql`updated_at <= ${at(f.updatedBefore)}`);
  if (f.overdue !== undefined) where.push(f.overdue ? OVERDUE : sql`NOT (${OVERDUE})`);
  if (f.afterTaskId !== undefined) where.push(sql`task_id > ${f.afterTaskId}`);
  const limit = f.limit === undefined ? sql`` : sql`LIMIT ${f.limit}`;
  const { rows } = await sql<TaskRow>`
    SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE ${sql.join(where, sql` AND `)}
    ORDER BY task_id ${limit}`.execute(db);
  return rows.map(taskFromRow);
}

/** CREATED tasks due for the dispatch job: a probe into the partial `task_task_dispatch_due_idx`. */
export async function dueForDispatch(db: QueryExecutorProvider, now: number, limit: number): Promise<TaskRecord[]> {
  const { rows } = await sql<TaskRow>`
    SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task
    WHERE status = 'CREATED' AND next_dispatch_at IS NOT NULL AND next_dispatch_at <= ${at(now)}
    ORDER BY next_dispatch_at, task_id LIMIT ${Math.max(0, Math.floor(limit))}`.execute(db);
  return rows.map(taskFromRow);
}

/** Tasks pending a callback, unchanged and not alerted on for a while: a range of the partial pending-callback index. */
export async function stalePendingCallbacks(db: QueryExecutorProvider, updatedBefore: number, alertedBefore: number, limit: number): Promise<TaskRecord[]> {
  const { rows } = await sql<TaskRow>`
    SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task
    WHERE status IN ('FINISHED_PENDING_CALLBACK','CANCEL_PENDING_CALLBACK') AND updated_at <= ${at(updatedBefore)}
      AND (callback_alert_at IS NULL OR callback_alert_at <= ${at(alertedBefore)})
    ORDER BY updated_at, task_id LIMIT ${Math.max(0, Math.floor(limit))}`.execute(db);
  return rows.map(taskFromRow);
}

/** `isTaskOverdue` of `@msgx/tasks`, the predicate of `task_task_overdue_idx`. */
const OVERDUE = sql`(status IN ('DISPATCHED','EXECUTING') AND (deadline_overdue_at IS NOT NULL OR heartbeat_overdue_at IS NOT NULL))`;

/** Overdue tasks per cause (`task_task_overdue_idx`). */
export async function countOverdueTasks(db: QueryExecutorProvider): Promise<{ DEADLINE: number; HEARTBEAT: number }> {
  const { rows } = await sql<{ deadline: unknown; heartbeat: unknown }>`
    SELECT count(*) FILTER (WHERE deadline_overdue_at IS NOT NULL) AS deadline, count(*) FILTER (WHERE heartbeat_overdue_at IS NOT NULL) AS heartbeat
    FROM task_task WHERE ${OVERDUE}`.execute(db);
  return { DEADLINE: Number(rows[0]?.deadline ?? 0), HEARTBEAT: Number(rows[0]?.heartbeat ?? 0) };
}

/**
 * Watched tasks with an unreported overdue cause (`decideTaskOverdue` of `@msgx/tasks`): the
 * earliest due of each probe (`task_task_deadline_due_idx`, `task_task_heartbeat_due_idx`), then
 * at most `limit` of them by id.
 */
export async function overdueCandidates(db: QueryExecutorProvider, now: number, limit: number): Promise<TaskRecord[]> {
  const n = Math.max(0, Math.floor(limit));
  const { rows } = await sql<TaskRow>`
    SELECT ${sql.raw(TASK_COLUMNS)} FROM task_task WHERE task_id IN (
      (SELECT task_id FROM task_task
       WHERE status IN ('DISPATCHED','EXECUTING') AND deadline_at IS NOT NULL AND deadline_overdue_at IS NULL AND deadline_at <= ${at(now)}
       ORDER BY deadline_at, task_id LIMIT ${n})
      UNION
      (SELECT task_id FROM task_task
       WHERE status IN ('DISPATCHED','EXECUTING') AND heartbeat_due_at IS NOT NULL AND heartbeat_overdue_at IS NULL AND heartbeat_due_at <= ${at(now)}
       ORDER BY heartbeat_due_at, task_id LIMIT ${n}))
    ORDER BY task_id LIMIT ${n}`.execute(db);
  return rows.map(taskFromRow);
}

/**
 * Deletes the oldest finished tasks (an ordered range of `task_task_finished_idx`) with their
 * feedback and callback rows, children first (they reference the task), in the caller's transaction.
 */
export async function purgeFinishedTasks(db: QueryExecutorProvider, before: number, limit: number): Promise<number> {
  const { rows } = await sql<{ task_id: string }>`
    SELECT task_id FROM task_task
    WHERE status IN ('FINISHED','CANCELLED','FAILED') AND updated_at < ${at(before)}
    ORDER BY updated_at, task_id LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`.execute(db);
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => r.task_id);
  await sql`DELETE FROM task_feedback WHERE task_id = ANY(${ids}::text[])`.execute(db);
  await sql`DELETE FROM task_callback WHERE task_id = ANY(${ids}::text[])`.execute(db);
  const deleted = await sql`DELETE FROM task_task WHERE task_id = ANY(${ids}::text[])`.execute(db);
  return Number(deleted.numAffectedRows ?? ids.length);
}

export async function insertReplay(db: QueryExecutorProvider, e: TaskReplayEntry): Promise<void> {
  await sql`
    INSERT INTO task_replay (replay_id, replayed_by, reason, filter, task_ids, replayed_at)
    VALUES (${e.replayId}, ${e.by}, ${e.reason}, ${json(e.filter)}::jsonb, ${json(e.taskIds)}::jsonb, ${at(e.at)})`.execute(db);
}

export async function getReplay(db: QueryExecutorProvider, replayId: string): Promise<TaskReplayEntry | undefined> {
  const { rows } = await sql<ReplayRow>`SELECT ${sql.raw(REPLAY_COLUMNS)} FROM task_replay WHERE replay_id = ${replayId}`.execute(db);
  return rows[0] === undefined ? undefined : replayFromRow(rows[0]);
}

/** The entry under the idempotency key (served by the unique constraint's index). */
export async function findFeedback(db: QueryExecutorProvider, k: TaskFeedbackKey): Promise<TaskFeedbackEntry | undefined> {
  const { rows } = await sql<FeedbackRow>`
    SELECT ${sql.raw(FEEDBACK_COLUMNS)} FROM task_feedback
    WHERE task_id = ${k.taskId} AND external_event_id = ${k.externalEventId} AND status = ${k.status}`.execute(db);
  return rows[0] === undefined ? undefined : feedbackFromRow(rows[0]);
}

/** Appends an entry; a taken key is a unique violation (23505) that fails the transaction. */
export async function insertFeedback(db: QueryExecutorProvider, e: TaskFeedbackEntry): Promise<void> {
  await sql`
    INSERT INTO task_feedback (task_id, external_event_id, status, outcome, reason, event_id, received_at)
    VALUES (${e.taskId}, ${e.externalEventId}, ${e.status}, ${e.outcome}, ${e.reason}, ${e.eventId}, ${at(e.receivedAt)})`.execute(db);
}

export async function listFeedback(db: QueryExecutorProvider, taskId: string): Promise<TaskFeedbackEntry[]> {
  const { rows } = await sql<FeedbackRow>`
    SELECT ${sql.raw(FEEDBACK_COLUMNS)} FROM task_feedback WHERE task_id = ${taskId} ORDER BY feedback_id`.execute(db);
  return rows.map(feedbackFromRow);
}

export async function insertCallback(db: QueryExecutorProvider, e: TaskCallbackEntry): Promise<void> {
  await sql`
    INSERT INTO task_callback (task_id, event_id, result, message, outcome, reason, received_at)
    VALUES (${e.taskId}, ${e.eventId}, ${e.result}, ${e.message}, ${e.outcome}, ${e.reason}, ${at(e.receivedAt)})`.execute(db);
}

export async function listCallbacks(db: QueryExecutorProvider, taskId: string): Promise<TaskCallbackEntry[]> {
  const { rows } = await sql<CallbackRow>`
    SELECT ${sql.raw(CALLBACK_COLUMNS)} FROM task_callback WHERE task_id = ${taskId} ORDER BY callback_id`.execute(db);
  return rows.map(callbackFromRow);
}

/**
 * Serializes transactions on one event id with a transaction-scoped advisory lock (two-int form:
 * a class of its own, then `hashtext(event_id)`; a hash collision only makes two events wait for
 * each other), then reads the row in a new statement, so a commit made while we waited is seen.
 * No placeholder row is written: a rollback leaves nothing behind.
 */
export async function claimConsume(db: QueryExecutorProvider, lockClass: number, eventId: string): Promise<TaskConsumeLogEntry | undefined> {
  await sql`SELECT pg_advisory_xact_lock(${lockClass}::int4, hashtext(${eventId}))`.execute(db);
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE event_id = ${eventId}`.execute(db);
  return rows[0] === undefined ? undefined : consumeFromRow(rows[0]);
}

/**
 * Inserts the row or replaces a FAILED one (keeping `created_at`); a SUCCEEDED or DEAD row is
 * left alone. Returns the row as stored afterwards, written or not, in one statement.
 */
export async function writeConsume(db: QueryExecutorProvider, w: TaskConsumeLogWrite): Promise<{ readonly written: boolean; readonly row: TaskConsumeLogEntry }> {
  const wantsCallback = w.callback && w.status !== "FAILED";
  const { rows } = await sql<ConsumeRow & { written: boolean }>`
    WITH up AS (
      INSERT INTO task_event_consume_log AS t (event_id, task_id, owner_service, handler_code, event_type, status, error_msg,
                                              attempts, next_attempt_at, payload, delivery_event_id, callback_status,
                                              callback_attempts, callback_next_at, callback_error, created_at, updated_at)
      VALUES (${w.eventId}, ${w.taskId}, ${w.ownerService}, ${w.handlerCode}, ${w.eventType}, ${w.status}, ${w.errorMsg},
              ${w.attempts}, ${atOrNull(w.nextAttemptAt)}, ${json(w.payload)}::jsonb, ${w.deliveryEventId},
              ${wantsCallback ? "PENDING" : null}, 0, ${wantsCallback ? at(w.at) : null}, NULL, ${at(w.at)}, ${at(w.at)})
      ON CONFLICT (event_id) DO UPDATE
        SET task_id = EXCLUDED.task_id, owner_service = EXCLUDED.owner_service, handler_code = EXCLUDED.handler_code,
            event_type = EXCLUDED.event_type, status = EXCLUDED.status, error_msg = EXCLUDED.error_msg,
            attempts = EXCLUDED.attempts, next_attempt_at = EXCLUDED.next_attempt_at, payload = EXCLUDED.payload,
            delivery_event_id = EXCLUDED.delivery_event_id, callback_status = EXCLUDED.callback_status,
            callback_attempts = 0, callback_next_at = EXCLUDED.callback_next_at, callback_error = NULL,
            updated_at = EXCLUDED.updated_at
        WHERE t.status = 'FAILED'
      RETURNING ${sql.raw(CONSUME_COLUMNS)}
    )
    SELECT ${sql.raw(CONSUME_COLUMNS)}, true AS written FROM up
    UNION ALL
    SELECT ${sql.raw(CONSUME_COLUMNS)}, false AS written FROM task_event_consume_log
    WHERE event_id = ${w.eventId} AND NOT EXISTS (SELECT 1 FROM up)`.execute(db);
  const row = rows[0];
  if (row === undefined) throw new MsgxError("INFRA", `consume log ${w.eventId}: neither written nor found`);
  return { written: row.written, row: consumeFromRow(row) };
}

export async function getConsume(db: QueryExecutorProvider, eventId: string): Promise<TaskConsumeLogEntry | undefined> {
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE event_id = ${eventId}`.execute(db);
  return rows[0] === undefined ? undefined : consumeFromRow(rows[0]);
}

export async function listConsume(db: QueryExecutorProvider, f: TaskConsumeLogFilter): Promise<TaskConsumeLogEntry[]> {
  const where = [sql`true`];
  if (f.statuses !== undefined) where.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.callbackStatuses !== undefined) where.push(sql`callback_status = ANY(${[...f.callbackStatuses]}::text[])`);
  if (f.taskId !== undefined) where.push(sql`task_id = ${f.taskId}`);
  const limit = f.limit === undefined ? sql`` : sql`LIMIT ${f.limit}`;
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log WHERE ${sql.join(where, sql` AND `)}
    ORDER BY event_id ${limit}`.execute(db);
  return rows.map(consumeFromRow);
}

/** PENDING callbacks due at `now`, oldest due first: a probe into the partial callback index. */
export async function dueCallbacks(db: QueryExecutorProvider, now: number, limit: number): Promise<TaskConsumeLogEntry[]> {
  const { rows } = await sql<ConsumeRow>`
    SELECT ${sql.raw(CONSUME_COLUMNS)} FROM task_event_consume_log
    WHERE callback_status = 'PENDING' AND callback_next_at <= ${at(now)}
    ORDER BY callback_next_at, event_id LIMIT ${limit}`.execute(db);
  return rows.map(consumeFromRow);
}

export async function settleCallback(db: QueryExecutorProvider, eventId: string, status: "SENT" | "REJECTED", error: string | null, when: number): Promise<void> {
  await sql`
    UPDATE task_event_consume_log
    SET callback_status = ${status}, callback_next_at = NULL, callback_error = ${error}, updated_at = ${at(when)}
    WHERE event_id = ${eventId} AND callback_status = 'PENDING'`.execute(db);
}

export async function deferCallback(db: QueryExecutorProvider, eventId: string, attempts: number, nextAt: number, error: string): Promise<void> {
  await sql`
    UPDATE task_event_consume_log
    SET callback_attempts = ${attempts}, callback_next_at = ${at(nextAt)}, callback_error = ${error}
    WHERE event_id = ${eventId} AND callback_status = 'PENDING'`.execute(db);
}
