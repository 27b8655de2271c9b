import type { ApiCaller, CursorPage } from "@msgx/core";
import type { TaskOverdueReason } from "./task-overdue.js";
import type { TaskRecord, TaskStatus } from "./task-record.js";

/**
 * Why a task changed: a closed union, one kind per input that can change a task.
 * - `create`: the owner's create request.
 * - `mark-dispatched`: a caller recorded the external system's acceptance.
 * - `dispatch`: the dispatch job and the external system's answer (`accepted`, `refused`, `failed`).
 * - `feedback`: the external system's (ACS) feedback event: its id and status.
 * - `cancel`: a cancel request (its `requestId` and reason), recorded as a CANCELLED feedback.
 * - `callback`: the owner's callback: the event it answers and its result.
 * - `watchdog`: the watchdog alerted on a task left pending its callback (and sent its event again).
 * - `overdue`: the overdue job found the task past its deadline or heartbeat and sent TASK_OVERDUE
 *   (the status stays; the entry records the reason).
 * - `replay`: an operator's replay of a dead owner event.
 */
export type TaskCause =
  | { readonly kind: "create" }
  | { readonly kind: "mark-dispatched"; readonly externalTaskNo: string }
  | { readonly kind: "dispatch"; readonly answer: "accepted" | "refused" | "failed" }
  | { readonly kind: "feedback"; readonly externalEventId: string; readonly status: string }
  | { readonly kind: "cancel"; readonly requestId: string; readonly reason: string }
  | { readonly kind: "callback"; readonly eventId: string; readonly result: string }
  | { readonly kind: "watchdog" }
  | { readonly kind: "overdue"; readonly reason: TaskOverdueReason }
  | { readonly kind: "replay"; readonly replayId: string; readonly by: string };

/**
 * One change of a task, as its history keeps it. Every command that changes a task writes one
 * entry in the same transaction (`saveTaskChange`, `saveNewTask`), except that the watchdog's
 * alerts on a task still pending its callback fold into one entry ({@link taskEntryCollapsesInto}):
 * versions strictly increase, the newest entry's is the task's version, and the `to` of the last
 * one is its status now. A purged task takes its history with it.
 */
export interface TaskHistoryEntry {
  readonly taskId: string;
  /** The task's version after the change (1 for the create). */
  readonly version: number;
  /** When the change was written (the task's `updatedAt` after it), epoch ms. */
  readonly at: number;
  /** The status before; null for the create. */
  readonly from: TaskStatus | null;
  readonly to: TaskStatus;
  readonly cause: TaskCause;
  /** The HTTP call the change was made in (route, request id, peer); null for a job or a broker input. */
  readonly caller: ApiCaller | null;
  /** What the change made of the task, for a reader: the external number, the reason, the error. */
  readonly detail: string | null;
  /** How many changes this entry stands for: 1, or n for n watchdog alerts in a row (`version`, `at`, `detail` are the last one's). */
  readonly repeats: number;
  /** When the first of them was written, epoch ms (`at` for a single change). */
  readonly firstAt: number;
}

/** A page of a task's history, newest first; `next` is the `beforeVersion` of the page after it. */
export type TaskHistoryPage = CursorPage<"entries", TaskHistoryEntry, number>;

/** The entry of the change from `before` (undefined: the create) to `after`. */
export function taskHistoryEntry(before: TaskRecord | undefined, after: TaskRecord, cause: TaskCause, caller: ApiCaller | null): TaskHistoryEntry {
  return { taskId: after.taskId, version: after.version, at: after.updatedAt, from: before?.status ?? null, to: after.status, cause, caller, detail: taskChangeDetail(before, after), repeats: 1, firstAt: after.updatedAt };
}

/**
 * The collapse rule: a watchdog alert folds into the task's newest entry `last` when that is a
 * watchdog alert too, of the previous version and the same status (the watchdog alerts again every
 * `pendingCallbackRetryMs` while the owner stays silent, which would otherwise grow the history
 * without bound). The stores then replace `last` with {@link collapsedTaskEntry}. (The PostgreSQL
 * store states the same test in its UPDATE's WHERE.)
 */
export const taskEntryCollapsesInto = (last: TaskHistoryEntry | undefined, next: TaskHistoryEntry): last is TaskHistoryEntry =>
  last !== undefined && next.cause.kind === "watchdog" && last.cause.kind === "watchdog" && last.version === next.version - 1 && last.from === next.from && last.to === next.to;

/** `last` moved on by `next`: `next`'s version, time and detail, one more repeat, `last`'s first time. */
export const collapsedTaskEntry = (last: TaskHistoryEntry, next: TaskHistoryEntry): TaskHistoryEntry => ({ ...next, repeats: last.repeats + next.repeats, firstAt: last.firstAt });

/** The fields a change moved that a reader asks about, as one line (null when none). */
function taskChangeDetail(before: TaskRecord | undefined, after: TaskRecord): string | null {
  const parts: string[] = [];
  if (before === undefined) parts.push(`task ${after.taskNo}`);
  if (after.externalTaskNo !== null && after.externalTaskNo !== before?.externalTaskNo) parts.push(`external task ${after.externalTaskNo}`);
  if (after.dispatchError !== null && after.dispatchAttempts !== before?.dispatchAttempts) parts.push(`dispatch attempt ${after.dispatchAttempts}: ${after.dispatchError}`);
  if (after.lastEventId !== null && after.lastEventId !== before?.lastEventId) parts.push(`owner event ${after.lastEventId}`);
  // A refused dispatch's reason is its dispatch error too: said once.
  if (after.statusReason !== null && after.statusReason !== before?.statusReason && after.statusReason !== after.dispatchError) parts.push(`reason: ${after.statusReason}`);
  if (after.callbackError !== null && after.callbackError !== before?.callbackError) parts.push(`owner reported FAILURE: ${after.callbackError}`);
  if (before !== undefined && before.callbackError !== null && after.callbackError === null && after.status === before.status) parts.push("owner FAILURE cleared");
  if (after.callbackAlerts !== (before?.callbackAlerts ?? 0)) parts.push(`watchdog alert #${after.callbackAlerts}`);
  return parts.length === 0 ? null : parts.join("; ");
}

/** The status the history says a task is in (its newest entry's `to`), undefined for none. */
export const statusOfHistory = (history: readonly TaskHistoryEntry[]): TaskStatus | undefined => history.at(-1)?.to;
