import type { Clock } from "../runtime/clock.js";
import { silentLogger, type Logger } from "../runtime/logger.js";
import { decideTaskCallback, type TaskCallbackEntry, type TaskCallbackResult, type TaskCallback } from "./task-callback.js";
import { decideTaskFeedback, TaskFeedbackStatus, type TaskFeedback, type TaskFeedbackEntry } from "./task-feedback.js";
import { evolveTask } from "./task-machine.js";
import { assertTaskId, newTaskRecord, sameTaskRequest, TaskStatus, type NewTask, type TaskRecord } from "./task-record.js";
import { TaskRequestError } from "./task-request-error.js";
import { assertTaskRouting, DEFAULT_TASK_ROUTING, type TaskRouting } from "./task-routing-config.js";
import type { TaskStore } from "./task-store.js";

export interface TaskServiceDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly routing?: TaskRouting;
  readonly logger?: Logger;
}

/** The answer to a feedback: the log entry (the first one's, for a repeat) and the task after it. */
export interface TaskFeedbackAnswer {
  readonly entry: TaskFeedbackEntry;
  readonly duplicate: boolean;
  readonly task: TaskRecord;
}

/** The answer to a callback: its log entry and the task after it. */
export interface TaskCallbackAnswer {
  readonly entry: TaskCallbackEntry;
  readonly task: TaskRecord;
}

const FEEDBACK_STATUSES: readonly string[] = Object.values(TaskFeedbackStatus);
const CALLBACK_RESULTS: readonly TaskCallbackResult[] = ["SUCCESS", "FAILURE"];

/**
 * The task side of task-event routing (seed 001 §5, §9, §13.1). Each call is one `TaskStore`
 * transaction: load and lock the task, decide in memory (`decideTaskFeedback` / `decideTaskCallback`),
 * write the decision. Bad input is refused with `TaskRequestError`; store faults pass through as
 * `MsgxError` and the caller repeats the request (every call is idempotent).
 */
export class TaskService {
  readonly #store: TaskStore;
  readonly #clock: Clock;
  readonly #routing: TaskRouting;
  readonly #logger: Logger;

  constructor(deps: TaskServiceDeps) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#routing = deps.routing ?? DEFAULT_TASK_ROUTING;
    this.#logger = deps.logger ?? silentLogger;
    assertTaskRouting(this.#routing);
  }

  get routing(): TaskRouting {
    return this.#routing;
  }

  /**
   * Records a task (CREATED). Repeating the same request returns the stored task
   * (`created: false`); reusing the id for a different request is a `CONFLICT`.
   */
  async create(input: NewTask): Promise<{ readonly created: boolean; readonly task: TaskRecord }> {
    const fresh = newTaskRecord(input, this.#clock.now());
    return this.#store.transaction(async (tx) => {
      if (await tx.insertTask(fresh)) return { created: true, task: fresh };
      const stored = await tx.lockTask(fresh.taskId);
      if (stored === undefined) throw new TaskRequestError("CONFLICT", `task ${fresh.taskId} vanished while being created`);
      if (!sameTaskRequest(stored, fresh)) throw new TaskRequestError("CONFLICT", `task ${fresh.taskId} exists with other fields`);
      return { created: false, task: stored };
    });
  }

  /**
   * Records that the external system accepted the task under `externalTaskNo` (CREATED ->
   * DISPATCHED). Repeating it with the same number is a no-op; a task that moved on is returned
   * as it is (the external system's feedback arrived first).
   */
  async markDispatched(taskId: string, externalTaskNo: string): Promise<TaskRecord> {
    assertTaskId(taskId);
    if (typeof externalTaskNo !== "string" || externalTaskNo === "") throw new TaskRequestError("INVALID", "externalTaskNo is required");
    const now = this.#clock.now();
    return this.#store.transaction(async (tx) => {
      const task = await this.#lock(tx.lockTask(taskId), taskId);
      if (task.status !== TaskStatus.CREATED) {
        if (task.externalTaskNo !== null && task.externalTaskNo !== externalTaskNo) {
          throw new TaskRequestError("CONFLICT", `task ${taskId} was dispatched as ${task.externalTaskNo}`);
        }
        return task;
      }
      const next = evolveTask(task, { type: "dispatched", externalTaskNo }, now);
      await tx.updateTask(next);
      return next;
    });
  }

  /**
   * Records external feedback, idempotent on `taskId + externalEventId + status`. FINISHED and
   * CANCELLED move the task to *_PENDING_CALLBACK and write the owner event in the same
   * transaction; a cancel of a task that was never dispatched is a CANCELLED feedback too.
   */
  async feedback(input: TaskFeedback): Promise<TaskFeedbackAnswer> {
    const feedback = checkFeedback(input);
    const now = this.#clock.now();
    const answer = await this.#store.transaction(async (tx): Promise<TaskFeedbackAnswer> => {
      const task = await this.#lock(tx.lockTask(feedback.taskId), feedback.taskId);
      const prior = await tx.findFeedback(feedback);
      const decision = decideTaskFeedback(task, prior, feedback, this.#routing, now);
      switch (decision.kind) {
        case "unknown-task":
          throw new TaskRequestError("NOT_FOUND", `no task ${feedback.taskId}`);
        case "duplicate":
          return { entry: decision.entry, duplicate: true, task };
        case "logged":
          await tx.insertFeedback(decision.entry);
          if (decision.task !== null) await tx.updateTask(decision.task);
          if (decision.event !== null) await tx.appendEvents([decision.event]);
          return { entry: decision.entry, duplicate: false, task: decision.task ?? task };
      }
    });
    const fields = { taskId: feedback.taskId, externalEventId: feedback.externalEventId, status: feedback.status, outcome: answer.entry.outcome };
    if (answer.entry.outcome === "REJECTED") this.#logger.warn("task feedback rejected", { ...fields, reason: answer.entry.reason });
    else if (!answer.duplicate) this.#logger.info("task feedback", { ...fields, eventId: answer.entry.eventId });
    return answer;
  }

  /** Records an owner's callback; SUCCESS brings the task to FINISHED / CANCELLED. Repeats are harmless. */
  async callback(input: TaskCallback): Promise<TaskCallbackAnswer> {
    const callback = checkCallback(input);
    const now = this.#clock.now();
    const answer = await this.#store.transaction(async (tx): Promise<TaskCallbackAnswer> => {
      const task = await this.#lock(tx.lockTask(callback.taskId), callback.taskId);
      const decision = decideTaskCallback(task, callback, now);
      if (decision.kind === "unknown-task") throw new TaskRequestError("NOT_FOUND", `no task ${callback.taskId}`);
      await tx.insertCallback(decision.entry);
      if (decision.task !== null) await tx.updateTask(decision.task);
      return { entry: decision.entry, task: decision.task ?? task };
    });
    const fields = { taskId: callback.taskId, eventId: callback.eventId, result: callback.result, outcome: answer.entry.outcome };
    if (answer.entry.outcome === "REJECTED") this.#logger.warn("task callback rejected", { ...fields, reason: answer.entry.reason });
    else if (answer.entry.outcome === "RECORDED") this.#logger.error("owner reported the task event dead-lettered", { ...fields, message: callback.message ?? null });
    else this.#logger.info("task callback", { ...fields, status: answer.task.status });
    return answer;
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#store.get(taskId);
  }

  async #lock(pending: Promise<TaskRecord | undefined>, taskId: string): Promise<TaskRecord> {
    const task = await pending;
    if (task === undefined) throw new TaskRequestError("NOT_FOUND", `no task ${taskId}`);
    return task;
  }
}

const optionalText = (v: unknown, field: string): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length > 1_000) throw new TaskRequestError("INVALID", `${field} must be a string of at most 1000 characters`);
  return v;
};

function checkFeedback(input: TaskFeedback): TaskFeedback {
  assertTaskId(input.taskId);
  if (typeof input.externalEventId !== "string" || input.externalEventId === "" || input.externalEventId.length > 256) {
    throw new TaskRequestError("INVALID", "externalEventId must be a string of 1..256 characters");
  }
  if (!FEEDBACK_STATUSES.includes(input.status)) {
    throw new TaskRequestError("INVALID", `status must be one of ${FEEDBACK_STATUSES.join(", ")}: ${JSON.stringify(input.status)}`);
  }
  return {
    taskId: input.taskId,
    externalEventId: input.externalEventId,
    status: input.status,
    externalTaskNo: optionalText(input.externalTaskNo, "externalTaskNo"),
    reason: optionalText(input.reason, "reason"),
  };
}

function checkCallback(input: TaskCallback): TaskCallback {
  assertTaskId(input.taskId);
  if (typeof input.eventId !== "string" || input.eventId === "") throw new TaskRequestError("INVALID", "eventId is required");
  if (!CALLBACK_RESULTS.includes(input.result)) {
    throw new TaskRequestError("INVALID", `result must be SUCCESS or FAILURE: ${JSON.stringify(input.result)}`);
  }
  return { taskId: input.taskId, eventId: input.eventId, result: input.result, message: optionalText(input.message, "message") };
}
