import { TaskRequestError } from "./task-request-error.js";
import { states, type ValueOf } from "@msgx/core";

/** The lifecycle of a task (seed 001); see `task-machine.ts` for what each status means. */
export const TaskStatus = states("CREATED", "DISPATCHED", "EXECUTING", "FINISHED_PENDING_CALLBACK", "FINISHED", "CANCEL_PENDING_CALLBACK", "CANCELLED", "FAILED");
export type TaskStatus = ValueOf<typeof TaskStatus>;

export const TASK_STATUSES: readonly TaskStatus[] = Object.values(TaskStatus);

/** Statuses in which the task waits for its owner's callback. */
export const PENDING_CALLBACK_STATUSES: readonly TaskStatus[] = [TaskStatus.FINISHED_PENDING_CALLBACK, TaskStatus.CANCEL_PENDING_CALLBACK];

/** Terminal statuses: nothing changes a task in them any more (FAILED: the dispatch was refused for good). */
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = [TaskStatus.FINISHED, TaskStatus.CANCELLED, TaskStatus.FAILED];

/** True when a task in `status` waits for its owner's callback. */
export const awaitsCallback = (status: TaskStatus): boolean => PENDING_CALLBACK_STATUSES.includes(status);

/** A JSON object (the task's request payload, the seed's `request_param`). */
export type TaskPayload = Readonly<Record<string, unknown>>;

/** What names a task, the owner its events go to, and the system that executes it; fixed at create. */
export interface TaskSubject {
  /** Caller-chosen, unique: `[A-Za-z0-9._:-]`, 1..128 characters (e.g. `T202607130001`). */
  readonly taskId: string;
  /** The business service that owns the task and gets its events (`LMS`, `WMS`). */
  readonly ownerService: string;
  /** Which handler of the owner runs for the task's events (`LMS_STOCK_AREA_CALL_TUBE`). */
  readonly handlerCode: string;
  readonly bizType: string;
  /** The owner's business record id, for the handler to look its data up. */
  readonly bizId: string;
  /** The system that executes the task (`ACS`, the AGV control system). */
  readonly externalSystem: string;
}

/**
 * Where the executing system moves what (seed 001's create body: `startPointCode`, `endPointCode`,
 * `vehicleCode`), each 1..128 characters when given; fixed at create, like the subject.
 */
export interface TaskPlaces {
  readonly startPointCode?: string | null;
  readonly endPointCode?: string | null;
  readonly vehicleCode?: string | null;
}

/** What an owner service asks the task service to record (the seed's `createTask` body). */
export interface NewTask extends TaskSubject, TaskPlaces {
  /** The external system's task type (`3`), when it has one. */
  readonly externalTaskType?: string | null;
  /** Extension data (the seed's `requestPayload`: `to_material`, `product_area`, ...). Default `{}`. */
  readonly payload?: TaskPayload;
  /**
   * Whether the task service's dispatcher sends the task to the external system (default true when
   * the service has a dispatcher). `false`: the caller dispatches it and reports `markDispatched`.
   * Not part of the task's identity: a repeated create ignores it.
   */
  readonly dispatch?: boolean;
}

/** The external system's names for a task: its type, and its number once dispatched. */
export interface TaskExternalRef {
  readonly externalTaskType: string | null;
  /** The external system's number for the task, known once it was dispatched. */
  readonly externalTaskNo: string | null;
}

/** A stored task (`task_task`). */
export interface TaskRecord extends TaskSubject, TaskExternalRef {
  /** The human task number (`T202607130001`, `task-no.ts`), given by the store at create; unique. */
  readonly taskNo: string;
  readonly startPointCode: string | null;
  readonly endPointCode: string | null;
  readonly vehicleCode: string | null;
  readonly payload: TaskPayload;
  readonly status: TaskStatus;
  /** 1 on create, +1 on every transition; the `stateVersion` of its outbox events. */
  readonly version: number;
  /** The id of the last TASK_FINISHED / TASK_CANCELLED event; a callback must echo it. */
  readonly lastEventId: string | null;
  /** Why the last transition happened (a cancel reason), when the feedback said. */
  readonly statusReason: string | null;
  /** The owner's last FAILURE callback (its handler dead-lettered the event), until a SUCCESS or a replay. */
  readonly callbackError: string | null;
  /** Dispatch calls the external system answered (accepted, refused or failed); outages are not counted. */
  readonly dispatchAttempts: number;
  /** When the dispatch job sends the task (again); null when the task does not wait for a dispatch. */
  readonly nextDispatchAt: number | null;
  /** The last dispatch failure or refusal, as the external system (or the transport) gave it. */
  readonly dispatchError: string | null;
  /** The watchdog's alerts on this task while it waited for its owner's callback. */
  readonly callbackAlerts: number;
  /** The watchdog's last alert (and redelivery) on this task; null when it never alerted. */
  readonly callbackAlertAt: number | null;
  /** Time allowed from dispatch to a FINISHED / CANCELLED report (`task-overdue.ts`), fixed at create; null = no deadline. */
  readonly deadlineMs: number | null;
  /** Time allowed between progress reports (the dispatch counts as one), fixed at create; null = no heartbeat watch. */
  readonly heartbeatMs: number | null;
  /** When the deadline runs out: set when the task is first dispatched (or reported on), with a `deadlineMs`. */
  readonly deadlineAt: number | null;
  /** The dispatch or the last EXECUTING feedback: the executing system's last sign of life. */
  readonly lastProgressAt: number | null;
  /** When TASK_OVERDUE (DEADLINE) was published; null before (once per task). */
  readonly deadlineOverdueAt: number | null;
  /** When TASK_OVERDUE (HEARTBEAT) was published for the current silence; an EXECUTING feedback clears it. */
  readonly heartbeatOverdueAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** Usable as a Kafka header value and inside a topic name (`[a-zA-Z0-9._-]`). */
const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Throws `TaskRequestError("INVALID")` unless `value` is a task id (also used for event ids). */
export function assertTaskId(value: unknown, field = "taskId"): asserts value is string {
  if (typeof value !== "string" || !ID_PATTERN.test(value)) {
    throw new TaskRequestError("INVALID", `${field} must match ${ID_PATTERN.source}: ${JSON.stringify(value)}`);
  }
}

/** Throws `TaskRequestError("INVALID")` unless `value` is an owner service or handler code. */
export function assertRoutingCode(value: unknown, field: string): asserts value is string {
  if (typeof value !== "string" || !CODE_PATTERN.test(value)) {
    throw new TaskRequestError("INVALID", `${field} must match ${CODE_PATTERN.source}: ${JSON.stringify(value)}`);
  }
}

export const isRoutingCode = (value: unknown): value is string => typeof value === "string" && CODE_PATTERN.test(value);

function assertText(value: unknown, field: string, max = 256): asserts value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > max) {
    throw new TaskRequestError("INVALID", `${field} must be a string of 1..${max} characters`);
  }
}

/** Null when absent; else a string of 1..`max` characters. */
function optionalCode(value: unknown, field: string, max = 128): string | null {
  if (value === undefined || value === null) return null;
  assertText(value, field, max);
  return value;
}

const isJsonObject = (v: unknown): v is TaskPayload => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks a create request and builds the CREATED record (version 1) under `taskNo` (the number
 * its store gave it). `dispatchAt`: when the dispatch job should send it (null: it is dispatched
 * by its caller, `markDispatched`); `timeouts`: its deadline and heartbeat (`resolveTaskTimeouts`).
 */
export function newTaskRecord(input: NewTask, now: number, taskNo: string, dispatchAt: number | null = null, timeouts: Pick<TaskRecord, "deadlineMs" | "heartbeatMs"> = { deadlineMs: null, heartbeatMs: null }): TaskRecord {
  assertTaskId(input.taskId);
  assertRoutingCode(input.ownerService, "ownerService");
  assertRoutingCode(input.handlerCode, "handlerCode");
  assertText(input.bizType, "bizType");
  assertText(input.bizId, "bizId");
  assertText(input.externalSystem, "externalSystem");
  const externalTaskType = input.externalTaskType ?? null;
  if (externalTaskType !== null) assertText(externalTaskType, "externalTaskType");
  const startPointCode = optionalCode(input.startPointCode, "startPointCode");
  const endPointCode = optionalCode(input.endPointCode, "endPointCode");
  const vehicleCode = optionalCode(input.vehicleCode, "vehicleCode");
  const payload = input.payload ?? {};
  if (!isJsonObject(payload)) throw new TaskRequestError("INVALID", "payload must be a JSON object");
  return {
    taskId: input.taskId,
    taskNo,
    ownerService: input.ownerService,
    handlerCode: input.handlerCode,
    bizType: input.bizType,
    bizId: input.bizId,
    externalSystem: input.externalSystem,
    externalTaskType,
    externalTaskNo: null,
    startPointCode,
    endPointCode,
    vehicleCode,
    payload,
    status: TaskStatus.CREATED,
    version: 1,
    lastEventId: null,
    statusReason: null,
    callbackError: null,
    dispatchAttempts: 0,
    nextDispatchAt: dispatchAt,
    dispatchError: null,
    callbackAlerts: 0,
    callbackAlertAt: null,
    deadlineMs: timeouts.deadlineMs,
    heartbeatMs: timeouts.heartbeatMs,
    deadlineAt: null,
    lastProgressAt: null,
    deadlineOverdueAt: null,
    heartbeatOverdueAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** True when a repeated create asks for the same task (routing fields, places and payload equal; not the number). */
export function sameTaskRequest(stored: TaskRecord, requested: TaskRecord): boolean {
  return (
    stored.ownerService === requested.ownerService &&
    stored.handlerCode === requested.handlerCode &&
    stored.bizType === requested.bizType &&
    stored.bizId === requested.bizId &&
    stored.externalSystem === requested.externalSystem &&
    stored.externalTaskType === requested.externalTaskType &&
    stored.startPointCode === requested.startPointCode &&
    stored.endPointCode === requested.endPointCode &&
    stored.vehicleCode === requested.vehicleCode &&
    canonicalJson(stored.payload) === canonicalJson(requested.payload)
  );
}

/** JSON with object keys sorted, so key order (jsonb reorders them) never makes two values differ. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isJsonObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}
