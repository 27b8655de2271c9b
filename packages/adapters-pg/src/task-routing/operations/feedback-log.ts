import type { TaskFeedbackEntry, TaskFeedbackKey } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { at, FEEDBACK_COLUMNS, feedbackFromRow, type FeedbackRow } from "../task-rows.js";

/** The entry under the idempotency key (served by the unique constraint's index). */
export async function findFeedback(db: Kysely<any>, k: TaskFeedbackKey): Promise<TaskFeedbackEntry | undefined> {
  const { rows } = await sql<FeedbackRow>`
    SELECT ${sql.raw(FEEDBACK_COLUMNS)} FROM task_feedback
    WHERE task_id = ${k.taskId} AND external_event_id = ${k.externalEventId} AND status = ${k.status}`.execute(db);
  return rows[0] === undefined ? undefined : feedbackFromRow(rows[0]);
}

/** Appends an entry; a taken key is a unique violation (23505) that fails the transaction. */
export async function insertFeedback(db: Kysely<any>, e: TaskFeedbackEntry): Promise<void> {
  await sql`
    INSERT INTO task_feedback (task_id, external_event_id, status, outcome, reason, event_id, received_at)
    VALUES (${e.taskId}, ${e.externalEventId}, ${e.status}, ${e.outcome}, ${e.reason}, ${e.eventId}, ${at(e.receivedAt)})`.execute(db);
}

export async function listFeedback(db: Kysely<any>, taskId: string): Promise<TaskFeedbackEntry[]> {
  const { rows } = await sql<FeedbackRow>`
    SELECT ${sql.raw(FEEDBACK_COLUMNS)} FROM task_feedback WHERE task_id = ${taskId} ORDER BY feedback_id`.execute(db);
  return rows.map(feedbackFromRow);
}
