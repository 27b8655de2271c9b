import { isRoutingCode, type TaskExternalRef, type TaskPayload, type TaskRecord, type TaskSubject } from "./task-record.js";
import { states, type ValueOf } from "@msgx/core";
import type { TaskOverdueReason } from "./task-overdue.js";

/**
 * The events a task publishes to its owner. `TASK_EXECUTING` (progress) and `TASK_OVERDUE` (past
 * its deadline or heartbeat timeout) expect no callback and came after the first release: a
 * consumer older than them dead-letters them as an unknown event type.
 */
export const TaskEventType = states("TASK_FINISHED", "TASK_CANCELLED", "TASK_EXECUTING", "TASK_OVERDUE");
export type TaskEventType = ValueOf<typeof TaskEventType>;

/** The schema version of {@link TaskEventMessage}; bumped on any incompatible change. */
export const TASK_EVENT_SCHEMA_VERSION = 1;

/**
 * The record value of a task event (JSON; `docs/task-routing.md`). Every field is always present;
 * the nullable ones are null when unknown.
 */
export interface TaskEventMessage extends TaskSubject, TaskExternalRef {
  readonly schemaVersion: typeof TASK_EVENT_SCHEMA_VERSION;
  /**
   * Stable id of this fact, `<taskId>#<taskVersion>`: the owner's consume log dedupes on it and
   * the callback echoes it. The same on every resend of the record.
   */
  readonly eventId: string;
  readonly eventType: TaskEventType;
  /** The human task number (`T202607130001`); absent on records written before task numbers existed. */
  readonly taskNo?: string;
  /** The create request's places (seed 001: start and end point, vehicle), null when not given; absent on records written before them. */
  readonly startPointCode?: string | null;
  readonly endPointCode?: string | null;
  readonly vehicleCode?: string | null;
  /** The task's version after the transition that produced the event. */
  readonly taskVersion: number;
  /** The external feedback that caused the event (or the cancel request id). */
  readonly externalEventId: string;
  /** A cancel reason or the feedback's message, when given. */
  readonly reason: string | null;
  /**
   * TASK_EXECUTING: the external system's progress report (text or JSON text, at most 2000
   * characters), null when it gave none. Null on the other events; absent on records written
   * before TASK_EXECUTING existed.
   */
  readonly progress?: string | null;
  /** TASK_OVERDUE only: which timeout ran out. */
  readonly overdueReason?: TaskOverdueReason;
  /** TASK_OVERDUE only: when the deadline ran out (ISO-8601 UTC), null when the task has none. */
  readonly deadlineAt?: string | null;
  /** TASK_OVERDUE only: the dispatch or last EXECUTING feedback (ISO-8601 UTC), null when never dispatched. */
  readonly lastProgressAt?: string | null;
  /** When the task service recorded the feedback, ISO-8601 UTC. */
  readonly occurredAt: string;
  /** The task's request payload, as created. */
  readonly payload: TaskPayload;
}

/** The event id of the transition that brought a task to `version`. */
export const taskEventId = (taskId: string, version: number): string => `${taskId}#${version}`;

/** What an event says besides the task: the feedback's message and progress (TASK_EXECUTING). */
export interface TaskEventExtras {
  /** Default: the task's `statusReason`. */
  readonly reason?: string | null;
  readonly progress?: string | null;
  /** The task version the event belongs to (republishing an earlier event). Default: the task's. */
  readonly version?: number;
  /** TASK_OVERDUE: the cause; the event then carries the task's deadline and last progress. */
  readonly overdueReason?: TaskOverdueReason;
}

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The version an event id names (`<taskId>#<version>`); NaN when it names none. */
export const taskEventVersion = (eventId: string): number => {
  const hash = eventId.lastIndexOf("#");
  const version = hash < 0 ? Number.NaN : Number(eventId.slice(hash + 1));
  return Number.isSafeInteger(version) ? version : Number.NaN;
};

/** Builds the message for `task` as it is right after the transition that published it. */
export function taskEventMessage(
  task: TaskRecord,
  eventType: TaskEventType,
  externalEventId: string,
  at: number,
  extras: TaskEventExtras = {},
): TaskEventMessage {
  const version = extras.version ?? task.version;
  return {
    schemaVersion: TASK_EVENT_SCHEMA_VERSION,
    eventId: taskEventId(task.taskId, version),
    eventType,
    taskId: task.taskId,
    taskNo: task.taskNo,
    taskVersion: version,
    ownerService: task.ownerService,
    handlerCode: task.handlerCode,
    bizType: task.bizType,
    bizId: task.bizId,
    externalSystem: task.externalSystem,
    externalTaskType: task.externalTaskType,
    externalTaskNo: task.externalTaskNo,
    startPointCode: task.startPointCode,
    endPointCode: task.endPointCode,
    vehicleCode: task.vehicleCode,
    externalEventId,
    reason: extras.reason !== undefined ? extras.reason : task.statusReason,
    progress: extras.progress ?? null,
    ...(extras.overdueReason === undefined
      ? {}
      : { overdueReason: extras.overdueReason, deadlineAt: isoOrNull(task.deadlineAt), lastProgressAt: isoOrNull(task.lastProgressAt) }),
    occurredAt: new Date(at).toISOString(),
    payload: task.payload,
  };
}

/** A parsed message, or why the value is not one. */
export type ParsedTaskEvent = { readonly ok: true; readonly event: TaskEventMessage } | { readonly ok: false; readonly reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";
const EVENT_TYPES: readonly unknown[] = Object.values(TaskEventType);
const isTaskEventType = (v: unknown): v is TaskEventType => EVENT_TYPES.includes(v);

/** True for an event the owner reports back on (FINISHED, CANCELLED); progress and overdue events expect none. */
export const expectsTaskCallback = (eventType: string): boolean => eventType === TaskEventType.TASK_FINISHED || eventType === TaskEventType.TASK_CANCELLED;

/**
 * Parses and checks a record value. An event type this version does not know is reported as such
 * (the consumer dead-letters it with that reason) rather than as malformed JSON.
 */
export function parseTaskEvent(value: string | null): ParsedTaskEvent {
  if (value === null) return { ok: false, reason: "record has no value" };
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return { ok: false, reason: "record value is not JSON" };
  }
  if (!isObject(raw)) return { ok: false, reason: "record value is not a JSON object" };
  if (raw["schemaVersion"] !== TASK_EVENT_SCHEMA_VERSION) {
    return { ok: false, reason: `unsupported schemaVersion ${JSON.stringify(raw["schemaVersion"])}` };
  }
  const missing = (["eventId", "taskId", "bizType", "bizId", "externalSystem", "externalEventId", "occurredAt"] as const).filter(
    (f) => !isText(raw[f]),
  );
  if (missing.length > 0) return { ok: false, reason: `missing or empty: ${missing.join(", ")}` };
  if (!isRoutingCode(raw["ownerService"])) return { ok: false, reason: "ownerService is not a valid code" };
  if (!isRoutingCode(raw["handlerCode"])) return { ok: false, reason: "handlerCode is not a valid code" };
  if (!Number.isSafeInteger(raw["taskVersion"])) return { ok: false, reason: "taskVersion is not an integer" };
  if (!isTextOrNull(raw["externalTaskType"]) || !isTextOrNull(raw["externalTaskNo"]) || !isTextOrNull(raw["reason"])) {
    return { ok: false, reason: "externalTaskType, externalTaskNo and reason must be strings or null" };
  }
  if (!isObject(raw["payload"])) return { ok: false, reason: "payload is not a JSON object" };
  const eventType = raw["eventType"];
  if (!isTaskEventType(eventType)) return { ok: false, reason: `unknown eventType ${JSON.stringify(eventType)}` };
  return { ok: true, event: raw as unknown as TaskEventMessage };
}
