import { MsgxError, states, type ValueOf } from "@msgx/core";
import { TaskStatus, type TaskRecord } from "./task-record.js";

/**
 * Why a task is overdue (Temporal's activity timeouts):
 * - `DEADLINE`: not finished or cancelled within its deadline from dispatch (start-to-close);
 * - `HEARTBEAT`: no progress report from the executing system within its heartbeat timeout (the
 *   dispatch, then each EXECUTING feedback, re-arms it).
 */
export const TaskOverdueReason = states("DEADLINE", "HEARTBEAT");
export type TaskOverdueReason = ValueOf<typeof TaskOverdueReason>;

export const TASK_OVERDUE_REASONS: readonly TaskOverdueReason[] = Object.values(TaskOverdueReason);

/** The timeouts of one kind of task; an absent one is not watched. */
export interface TaskTimeouts {
  /** From dispatch to FINISHED / CANCELLED feedback (Temporal's start-to-close timeout). */
  readonly deadlineMs?: number;
  /** From the dispatch or the last EXECUTING feedback to the next report (Temporal's heartbeat timeout). */
  readonly heartbeatMs?: number;
}

/**
 * Which tasks are watched and how: each timeout is taken from the task's `handlerCode` entry, else
 * its `bizType` entry, else `default`; a timeout none of them gives is not watched. Resolved when
 * the task is created and kept on it (as Temporal fixes an activity's timeouts when it is
 * scheduled): a change of the policy applies to tasks created after it.
 */
export interface TaskOverduePolicy {
  readonly default?: TaskTimeouts;
  readonly byHandlerCode?: Readonly<Record<string, TaskTimeouts>>;
  readonly byBizType?: Readonly<Record<string, TaskTimeouts>>;
}

/** A task's timeouts as stored on it: null = not watched. */
export type ResolvedTaskTimeouts = Pick<TaskRecord, "deadlineMs" | "heartbeatMs">;

export const NO_TASK_TIMEOUTS: ResolvedTaskTimeouts = { deadlineMs: null, heartbeatMs: null };

/** The timeouts `policy` gives a task of `handlerCode` and `bizType` (handler code first, then business type, then the default). */
export function resolveTaskTimeouts(policy: TaskOverduePolicy | undefined, task: { readonly handlerCode: string; readonly bizType: string }): ResolvedTaskTimeouts {
  if (policy === undefined) return NO_TASK_TIMEOUTS;
  const own = (map: Readonly<Record<string, TaskTimeouts>> | undefined, key: string): TaskTimeouts | undefined =>
    map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
  const entries = [own(policy.byHandlerCode, task.handlerCode), own(policy.byBizType, task.bizType), policy.default];
  const first = (name: keyof TaskTimeouts): number | null => entries.find((e) => e?.[name] !== undefined)?.[name] ?? null;
  return { deadlineMs: first("deadlineMs"), heartbeatMs: first("heartbeatMs") };
}

/** Throws `MsgxError("CONFIG")` unless every timeout of `policy` is a positive safe integer. */
export function assertTaskOverduePolicy(policy: TaskOverduePolicy): void {
  const entries: [string, TaskTimeouts | undefined][] = [
    ["default", policy.default],
    ...Object.entries(policy.byHandlerCode ?? {}).map(([k, v]): [string, TaskTimeouts] => [`byHandlerCode.${k}`, v]),
    ...Object.entries(policy.byBizType ?? {}).map(([k, v]): [string, TaskTimeouts] => [`byBizType.${k}`, v]),
  ];
  for (const [where, timeouts] of entries) {
    for (const name of ["deadlineMs", "heartbeatMs"] as const) {
      const v = timeouts?.[name];
      if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) throw new MsgxError("CONFIG", `task overdue policy ${where}.${name} must be a positive integer: ${v}`);
    }
  }
}

/** Statuses in which a task is watched: handed to the executing system and not reported done. */
export const WATCHED_TASK_STATUSES: readonly TaskStatus[] = [TaskStatus.DISPATCHED, TaskStatus.EXECUTING];

/** When the heartbeat of a watched task runs out: its last progress (or dispatch) plus its heartbeat timeout; null when not watched. */
export const taskHeartbeatDueAt = (task: TaskRecord): number | null =>
  task.heartbeatMs === null || task.lastProgressAt === null ? null : task.lastProgressAt + task.heartbeatMs;

/**
 * The overdue causes of `task` at `now` not yet reported in this episode: DEADLINE once per task,
 * HEARTBEAT once per silence (an EXECUTING feedback clears its mark). Empty for a task that is
 * not DISPATCHED or EXECUTING, or not watched.
 */
export function decideTaskOverdue(task: TaskRecord, now: number): readonly TaskOverdueReason[] {
  if (!WATCHED_TASK_STATUSES.includes(task.status)) return [];
  const reasons: TaskOverdueReason[] = [];
  if (task.deadlineAt !== null && task.deadlineAt <= now && task.deadlineOverdueAt === null) reasons.push(TaskOverdueReason.DEADLINE);
  const heartbeatDue = taskHeartbeatDueAt(task);
  if (heartbeatDue !== null && heartbeatDue <= now && task.heartbeatOverdueAt === null) reasons.push(TaskOverdueReason.HEARTBEAT);
  return reasons;
}

/** True when `task` is overdue now and was reported so: watched, with a deadline or heartbeat mark. */
export const isTaskOverdue = (task: TaskRecord): boolean =>
  WATCHED_TASK_STATUSES.includes(task.status) && (task.deadlineOverdueAt !== null || task.heartbeatOverdueAt !== null);

/** The owner event's text for an overdue cause. */
export function taskOverdueText(task: TaskRecord, reason: TaskOverdueReason, now: number): string {
  if (reason === TaskOverdueReason.DEADLINE) return `not finished within its deadline of ${task.deadlineMs} ms from dispatch (${now - (task.deadlineAt ?? now)} ms past it)`;
  return `no progress from ${task.externalSystem} for ${now - (task.lastProgressAt ?? now)} ms (heartbeat timeout ${task.heartbeatMs} ms)`;
}
