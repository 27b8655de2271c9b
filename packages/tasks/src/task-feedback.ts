import type { OutboxEventDraft } from "@msgx/core";
import { TaskEventType, taskEventId } from "./task-event.js";
import { evolveTask } from "./task-machine.js";
import { TaskStatus, type TaskRecord } from "./task-record.js";
import { taskEventDraft, type TaskRouting } from "./task-routing-config.js";
import { states, type ValueOf } from "@msgx/core";

/** What the external system (or the task service itself, for a cancel) reports about a task. */
export const TaskFeedbackStatus = states("EXECUTING", "FINISHED", "CANCELLED");
export type TaskFeedbackStatus = ValueOf<typeof TaskFeedbackStatus>;

/** The idempotency key of a feedback. */
export interface TaskFeedbackKey {
  readonly taskId: string;
  /** The external system's id of this report (for a cancel of an undispatched task: the request id). */
  readonly externalEventId: string;
  readonly status: TaskFeedbackStatus;
}

/**
 * One report (the seed's ACS feedback). Idempotent on its key (`taskId + externalEventId +
 * status`): the same report again gets the first answer and changes nothing.
 */
export interface TaskFeedback extends TaskFeedbackKey {
  /** The external system's task number, when the report carries it. */
  readonly externalTaskNo?: string | null;
  /** A cancel reason or message, passed on to the owner. */
  readonly reason?: string | null;
  /** EXECUTING only: the progress the external system reports (text or JSON text, at most 2000 characters), passed on to the owner. */
  readonly progress?: string | null;
}

/**
 * What a logged feedback did:
 * - `APPLIED`: it moved the task and published the owner event (TASK_EXECUTING, also for each
 *   progress report of a running task; TASK_FINISHED / TASK_CANCELLED);
 * - `IGNORED`: harmless repetition of a fact the task already reflects (a second FINISHED report
 *   under a new id, a late EXECUTING);
 * - `REJECTED`: it contradicts the task (FINISHED for a cancelled task): kept for review.
 */
export const TaskFeedbackOutcome = states("APPLIED", "IGNORED", "REJECTED");
export type TaskFeedbackOutcome = ValueOf<typeof TaskFeedbackOutcome>;

/** A row of the feedback log (`task_feedback`, unique on the key). */
export interface TaskFeedbackEntry extends TaskFeedbackKey {
  readonly outcome: TaskFeedbackOutcome;
  readonly reason: string | null;
  /** The owner event it published (APPLIED only). */
  readonly eventId: string | null;
  readonly receivedAt: number;
}

/** The decision on one feedback; `unknown-task` and `duplicate` write nothing. */
export type TaskFeedbackDecision =
  | { readonly kind: "unknown-task" }
  | { readonly kind: "duplicate"; readonly entry: TaskFeedbackEntry }
  | { readonly kind: "logged"; readonly entry: TaskFeedbackEntry; readonly task: TaskRecord | null; readonly event: OutboxEventDraft | null };

const S = TaskStatus;
const FINISHING = [S.FINISHED_PENDING_CALLBACK, S.FINISHED] as readonly TaskStatus[];
const CANCELLING = [S.CANCEL_PENDING_CALLBACK, S.CANCELLED] as readonly TaskStatus[];

/**
 * Decides on a feedback, given the task (locked) and the log entry already stored under the same
 * key. The result is written in one transaction: the log entry, the task (when it changed) and
 * the owner event (when one is due) — or nothing at all.
 */
export function decideTaskFeedback(
  task: TaskRecord | undefined,
  prior: TaskFeedbackEntry | undefined,
  feedback: TaskFeedback,
  routing: TaskRouting,
  now: number,
): TaskFeedbackDecision {
  if (task === undefined) return { kind: "unknown-task" };
  if (prior !== undefined) return { kind: "duplicate", entry: prior };
  const reason = feedback.reason ?? null;
  const entry = (outcome: TaskFeedbackOutcome, why: string | null, eventId: string | null = null): TaskFeedbackEntry => ({
    taskId: feedback.taskId,
    externalEventId: feedback.externalEventId,
    status: feedback.status,
    outcome,
    reason: why,
    eventId,
    receivedAt: now,
  });
  const ignored = (why: string): TaskFeedbackDecision => ({ kind: "logged", entry: entry(TaskFeedbackOutcome.IGNORED, why), task: null, event: null });
  const rejected = (why: string): TaskFeedbackDecision => ({ kind: "logged", entry: entry(TaskFeedbackOutcome.REJECTED, why), task: null, event: null });
  const externalTaskNo = feedback.externalTaskNo ?? null;

  switch (feedback.status) {
    case TaskFeedbackStatus.EXECUTING: {
      // A new report on a running task is progress: published too, under its own event id.
      if (task.status !== S.CREATED && task.status !== S.DISPATCHED && task.status !== S.EXECUTING) return ignored(`late report: task is ${task.status}`);
      const next = evolveTask(task, { type: "executing", externalTaskNo }, now);
      const event = taskEventDraft(next, TaskEventType.TASK_EXECUTING, feedback.externalEventId, routing, now, { reason, progress: feedback.progress ?? null });
      return { kind: "logged", entry: entry(TaskFeedbackOutcome.APPLIED, reason, taskEventId(task.taskId, next.version)), task: next, event };
    }
    case TaskFeedbackStatus.FINISHED:
    case TaskFeedbackStatus.CANCELLED: {
      const finishing = feedback.status === TaskFeedbackStatus.FINISHED;
      const same = finishing ? FINISHING : CANCELLING;
      const other = finishing ? CANCELLING : FINISHING;
      if (same.includes(task.status)) return ignored(`already ${task.status}: the owner event was published once`);
      if (other.includes(task.status)) return rejected(`conflicts with the task: it is ${task.status}`);
      if (task.status === S.FAILED) return rejected(`conflicts with the task: it is FAILED (dispatch refused: ${task.statusReason ?? "no reason"})`);
      const eventId = taskEventId(task.taskId, task.version + 1);
      const next = evolveTask(task, { type: finishing ? "finished" : "cancelled", eventId, reason, externalTaskNo }, now);
      const eventType = finishing ? TaskEventType.TASK_FINISHED : TaskEventType.TASK_CANCELLED;
      const event = taskEventDraft(next, eventType, feedback.externalEventId, routing, now);
      return { kind: "logged", entry: entry(TaskFeedbackOutcome.APPLIED, reason, eventId), task: next, event };
    }
  }
}
