import type { OutboxEventDraft } from "@msgx/core";
import { TaskEventType, taskEventVersion } from "./task-event.js";
import type { TaskFeedbackEntry } from "./task-feedback.js";
import { TaskStatus, type TaskRecord } from "./task-record.js";
import { taskEventDraft, type TaskRouting } from "./task-routing-config.js";

/** Which pending tasks an operator asks to replay: by ids, by owner, by handler code (combined: all must hold). */
export interface TaskReplayFilter {
  readonly taskIds?: readonly string[];
  readonly owner?: string;
  readonly handlerCode?: string;
}

/** Who replays and why; `dryRun`: list what would be replayed, change nothing. */
export interface TaskReplayRequest {
  readonly by: string;
  readonly reason: string;
  readonly dryRun?: boolean;
}

/** One task as the replay's preflight sees it. */
export interface TaskReplayCandidate {
  readonly taskId: string;
  /** Undefined for an asked-for id that does not exist. */
  readonly status: TaskRecord["status"] | null;
  readonly ownerService: string | null;
  readonly handlerCode: string | null;
  /** The event that would be republished (the task's `lastEventId`). */
  readonly eventId: string | null;
  readonly callbackError: string | null;
  readonly eligible: boolean;
  /** Why it is not eligible. */
  readonly refusal?: string;
}

/** The answer of `TaskService.replay`: the preflight list, and what was replayed (nothing on a dry run). */
export interface TaskReplayResult {
  /** Null on a dry run or when nothing was eligible (no audit row then). */
  readonly replayId: string | null;
  readonly dryRun: boolean;
  readonly candidates: readonly TaskReplayCandidate[];
  readonly replayed: readonly string[];
}

/** A row of the replay audit (`task_replay`). */
export interface TaskReplayEntry {
  readonly replayId: string;
  readonly by: string;
  readonly reason: string;
  readonly filter: TaskReplayFilter;
  readonly taskIds: readonly string[];
  readonly at: number;
}

/**
 * Whether a task's owner event may be replayed: it waits for its owner's callback and the owner's
 * last callback was FAILURE (its handler dead-lettered the event, or no handler has its code).
 */
export function taskReplayEligibility(task: TaskRecord): { readonly eligible: boolean; readonly refusal?: string } {
  if (task.status !== TaskStatus.FINISHED_PENDING_CALLBACK && task.status !== TaskStatus.CANCEL_PENDING_CALLBACK) {
    return { eligible: false, refusal: `status ${task.status} is not waiting for a callback` };
  }
  if (task.callbackError === null) return { eligible: false, refusal: "the owner did not report FAILURE (the event is not dead)" };
  if (task.lastEventId === null) return { eligible: false, refusal: "no event was published" };
  return { eligible: true };
}

export const taskReplayCandidate = (task: TaskRecord): TaskReplayCandidate => ({
  taskId: task.taskId,
  status: task.status,
  ownerService: task.ownerService,
  handlerCode: task.handlerCode,
  eventId: task.lastEventId,
  callbackError: task.callbackError,
  ...taskReplayEligibility(task),
});

/**
 * The outbox row that sends a pending task's owner event again: the same message as the first
 * time (same `eventId`, type, external event id and time, rebuilt from the task and the feedback
 * log entry that published it), plus `headers` saying why (`msgx-replay` / `msgx-redeliver`).
 * The relay gives the row a new `msgx-event-id`; the owner dedupes on the message's `eventId`.
 */
export function pendingEventDraft(
  task: TaskRecord,
  feedback: readonly TaskFeedbackEntry[],
  routing: TaskRouting,
  headers: Readonly<Record<string, string>>,
): OutboxEventDraft {
  const eventId = task.lastEventId;
  if (eventId === null) throw new RangeError(`task ${task.taskId} has no event to send again`);
  const eventType = task.status === TaskStatus.CANCEL_PENDING_CALLBACK || task.status === TaskStatus.CANCELLED ? TaskEventType.TASK_CANCELLED : TaskEventType.TASK_FINISHED;
  const source = feedback.find((f) => f.eventId === eventId);
  return taskEventDraft(task, eventType, source?.externalEventId ?? "unknown", routing, source?.receivedAt ?? task.updatedAt, {
    version: taskEventVersion(eventId),
    reason: task.statusReason,
    headers,
  });
}
