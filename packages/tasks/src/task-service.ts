import { MsgxError, type ApiCaller, type LineageQuery } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { decideTaskCallback, type TaskCallbackEntry, type TaskCallback } from "./task-callback.js";
import type { TaskDispatcher } from "./task-dispatcher.js";
import { decideTaskFeedback, TaskFeedbackStatus, type TaskFeedback, type TaskFeedbackEntry } from "./task-feedback.js";
import { TaskEventHeader } from "./task-headers.js";
import { assertTaskOverduePolicy, resolveTaskTimeouts, type TaskOverduePolicy } from "./task-overdue.js";
import { saveNewTask, saveTaskChange } from "./save-task-change.js";
import type { TaskHistoryEntry, TaskHistoryPage } from "./task-history.js";
import { evolveTask } from "./task-machine.js";
import { assertTaskId, newTaskRecord, PENDING_CALLBACK_STATUSES, sameTaskRequest, TaskStatus, type NewTask, type TaskRecord } from "./task-record.js";
import { pendingEventDraft, taskReplayCandidate, taskReplayEligibility, type TaskReplayCandidate, type TaskReplayFilter, type TaskReplayRequest, type TaskReplayResult } from "./task-replay.js";
import { TaskRequestError } from "./task-request-error.js";
import { checkTaskCallback, checkTaskFeedback, checkTaskReplayFilter, MAX_TASK_REPLAY, requiredText } from "./task-request-checks.js";
import { assertKnownOwner, assertTaskRouting, DEFAULT_TASK_ROUTING, type TaskRouting } from "./task-routing-config.js";
import type { TaskFilter, TaskStore } from "./task-store.js";
import { assertTaskNo, assertTaskNoTimeZone, DEFAULT_TASK_NO_TIME_ZONE, formatTaskNo, taskNoDay } from "./task-no.js";

export interface TaskServiceDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  /** Default: one topic, any owner. `topic-per-owner` needs its `owners`. */
  readonly routing?: TaskRouting;
  readonly logger?: Logger;
  /**
   * The external system. With one, created tasks wait for the dispatch job (`DispatchJob`) unless
   * created with `dispatch: false`, and `cancel` of a dispatched task asks it first. Without one,
   * tasks are dispatched by their caller (`markDispatched`) and a cancel is recorded at once.
   */
  readonly dispatcher?: TaskDispatcher;
  /** New replay ids. Default: random UUIDs. */
  readonly ids?: () => string;
  /**
   * The time zone whose day a task number carries (`T<yyyyMMdd><seq>`): an IANA name. Default
   * `UTC`; the runner passes `tasks.taskNo.timeZone` (the airport's local day is what its users read).
   */
  readonly taskNoTimeZone?: string;
  /**
   * The deadlines and heartbeat timeouts given to new tasks (by handler code, business type, or
   * default; `task-overdue.ts`), watched by `TaskOverdueJob`. Default: none, no task is watched.
   */
  readonly overduePolicy?: TaskOverduePolicy;
  /**
   * The HTTP call being served, for the tasks' history (the runner answers it); undefined (or
   * answering undefined): the change was not asked for over HTTP.
   */
  readonly callerOf?: () => ApiCaller | undefined;
}

/** What a cancel asks: why, and the caller's request id (the idempotency key of its CANCELLED feedback). */
export interface TaskCancelRequest {
  readonly reason: string;
  /** Default `cancel`. */
  readonly requestId?: string | null;
}

/**
 * The answer to a cancel: `cancelled` (this call recorded it: CANCEL_PENDING_CALLBACK and the
 * TASK_CANCELLED event) or `already` (the task was cancelled before: nothing changed).
 */
export interface TaskCancelAnswer {
  readonly outcome: "cancelled" | "already";
  readonly task: TaskRecord;
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
  readonly #dispatcher: TaskDispatcher | undefined;
  readonly #ids: () => string;
  readonly #taskNoTimeZone: string;
  readonly #overduePolicy: TaskOverduePolicy | undefined;
  readonly #callerOf: () => ApiCaller | undefined;

  constructor(deps: TaskServiceDeps) {
    this.#callerOf = deps.callerOf ?? (() => undefined);
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#routing = deps.routing ?? DEFAULT_TASK_ROUTING;
    this.#logger = deps.logger ?? silentLogger;
    this.#dispatcher = deps.dispatcher;
    this.#ids = deps.ids ?? (() => globalThis.crypto.randomUUID());
    this.#taskNoTimeZone = deps.taskNoTimeZone ?? DEFAULT_TASK_NO_TIME_ZONE;
    assertTaskNoTimeZone(this.#taskNoTimeZone);
    this.#overduePolicy = deps.overduePolicy;
    if (this.#overduePolicy !== undefined) assertTaskOverduePolicy(this.#overduePolicy);
    assertTaskRouting(this.#routing);
    if (this.#routing.mode === "topic-per-owner" && this.#routing.owners === undefined) {
      throw new MsgxError("CONFIG", "topic-per-owner task routing needs its owners: the relay has one target per known owner");
    }
  }

  get routing(): TaskRouting {
    return this.#routing;
  }

  /** True when tasks are dispatched by the dispatch job (a dispatcher is configured). */
  get dispatches(): boolean {
    return this.#dispatcher !== undefined;
  }

  /**
   * Records a task (CREATED) under the next task number of the day (`T202607130001`, the day in
   * `taskNoTimeZone`). Repeating the same request returns the stored task, number included
   * (`created: false`); reusing the id for a different request is a `CONFLICT`; an owner the
   * routing does not know is `UNKNOWN_OWNER`. With a dispatcher (and unless `dispatch: false`)
   * the task is due for the dispatch job at once.
   */
  async create(input: NewTask): Promise<{ readonly created: boolean; readonly task: TaskRecord }> {
    const now = this.#clock.now();
    const day = taskNoDay(now, this.#taskNoTimeZone);
    // Checked before the transaction, under a stand-in number: a refused request takes none.
    const dispatchAt = this.#dispatcher !== undefined && input.dispatch !== false ? now : null;
    const unwatched = newTaskRecord(input, now, formatTaskNo(day, 1), dispatchAt);
    const checked = { ...unwatched, ...resolveTaskTimeouts(this.#overduePolicy, unwatched) };
    assertKnownOwner(this.#routing, checked.ownerService);
    return this.#store.transaction(async (tx) => {
      // A repeat is answered before a number is taken, so repeats leave no gaps.
      const prior = await tx.lockTask(checked.taskId);
      if (prior === undefined) {
        const fresh = { ...checked, taskNo: formatTaskNo(day, await tx.nextTaskSeq(day)) };
        if (await saveNewTask(tx, fresh, this.#caller())) return { created: true, task: fresh };
      }
      const stored = prior ?? (await tx.lockTask(checked.taskId));
      if (stored === undefined) throw new TaskRequestError("CONFLICT", `task ${checked.taskId} vanished while being created`);
      if (!sameTaskRequest(stored, checked)) throw new TaskRequestError("CONFLICT", `task ${checked.taskId} exists with other fields`);
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
      await saveTaskChange(tx, task, next, { kind: "mark-dispatched", externalTaskNo }, this.#caller());
      return next;
    });
  }

  /**
   * Records external feedback, idempotent on `taskId + externalEventId + status`. FINISHED and
   * CANCELLED move the task to *_PENDING_CALLBACK and write the owner event in the same
   * transaction; a cancel of a task that was never dispatched is a CANCELLED feedback too.
   */
  async feedback(input: TaskFeedback): Promise<TaskFeedbackAnswer> {
    const feedback = checkTaskFeedback(input);
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
          if (decision.task !== null) await saveTaskChange(tx, task, decision.task, { kind: "feedback", externalEventId: feedback.externalEventId, status: feedback.status }, this.#caller());
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
    const callback = checkTaskCallback(input);
    const now = this.#clock.now();
    const answer = await this.#store.transaction(async (tx): Promise<TaskCallbackAnswer> => {
      const task = await this.#lock(tx.lockTask(callback.taskId), callback.taskId);
      const decision = decideTaskCallback(task, callback, now);
      if (decision.kind === "unknown-task") throw new TaskRequestError("NOT_FOUND", `no task ${callback.taskId}`);
      await tx.insertCallback(decision.entry);
      if (decision.task !== null) await saveTaskChange(tx, task, decision.task, { kind: "callback", eventId: callback.eventId, result: callback.result }, this.#caller());
      return { entry: decision.entry, task: decision.task ?? task };
    });
    const fields = { taskId: callback.taskId, eventId: callback.eventId, result: callback.result, outcome: answer.entry.outcome };
    if (answer.entry.outcome === "REJECTED") this.#logger.warn("task callback rejected", { ...fields, reason: answer.entry.reason });
    else if (answer.entry.outcome === "RECORDED") this.#logger.error("owner reported the task event dead-lettered", { ...fields, message: callback.message ?? null });
    else this.#logger.info("task callback", { ...fields, status: answer.task.status });
    return answer;
  }

  /**
   * Cancels a task (seed 001 §10), idempotent: a task never dispatched is cancelled at once; a
   * dispatched or executing one is cancelled in the external system first (outside any
   * transaction), then recorded. Recorded means CANCEL_PENDING_CALLBACK with the TASK_CANCELLED
   * event, as a CANCELLED feedback keyed by `requestId`. Refusals: `TOO_LATE` (the external system
   * finished it), `CANCEL_FAILED` (it could not cancel now), `ILLEGAL_STATE` (finished or failed),
   * `NOT_FOUND`. An unreachable external system throws `MsgxError("DEPENDENCY_UNAVAILABLE")`.
   */
  async cancel(taskId: string, request: TaskCancelRequest, signal?: AbortSignal): Promise<TaskCancelAnswer> {
    assertTaskId(taskId);
    const reason = requiredText(request.reason, "reason", 1_000);
    const requestId = request.requestId ?? "cancel";
    if (typeof requestId !== "string" || requestId === "" || requestId.length > 256) {
      throw new TaskRequestError("INVALID", "requestId must be a string of 1..256 characters");
    }
    // A task that moves between the look and the record (the dispatch job dispatched it) is looked at again.
    for (let round = 0; ; round++) {
      const task = await this.#store.get(taskId);
      if (task === undefined) throw new TaskRequestError("NOT_FOUND", `no task ${taskId}`);
      switch (task.status) {
        case TaskStatus.CANCEL_PENDING_CALLBACK:
        case TaskStatus.CANCELLED:
          return { outcome: "already", task };
        case TaskStatus.FINISHED_PENDING_CALLBACK:
        case TaskStatus.FINISHED:
        case TaskStatus.FAILED:
          throw new TaskRequestError("ILLEGAL_STATE", `task ${taskId} is ${task.status}: it cannot be cancelled`);
        case TaskStatus.CREATED:
        case TaskStatus.DISPATCHED:
        case TaskStatus.EXECUTING: {
          // A CREATED task waiting for the dispatch job may have had a dispatch accepted with the
          // answer lost, so the external system is asked too (by task id; it answers cancelled for a
          // task it never accepted). A task nobody dispatches through us is cancelled here alone.
          if (this.#dispatcher === undefined || (task.status === TaskStatus.CREATED && task.nextDispatchAt === null)) break;
          const answer = await this.#dispatcher.cancel(task, reason, signal);
          if (answer.kind === "too-late") {
            this.#logger.info("task cancel too late: the external system finished it", { taskId });
            throw new TaskRequestError("TOO_LATE", `task ${taskId}: the external system already finished it`);
          }
          if (answer.kind === "failed") {
            this.#logger.warn("task cancel failed in the external system", { taskId, reason: answer.reason });
            throw new TaskRequestError("CANCEL_FAILED", `task ${taskId}: the external system could not cancel it: ${answer.reason}`);
          }
          // Cancelled externally: record it whatever the task did meanwhile (the external system's answer is the fact).
          const recorded = await this.#recordCancel(task, requestId, reason, null);
          if (recorded === "moved") throw new MsgxError("CONFLICT", `task ${taskId}: an unexpected cancel outcome`);
          return recorded;
        }
      }
      const recorded = await this.#recordCancel(task, requestId, reason, task.status);
      if (recorded !== "moved") return recorded;
      if (round >= 5) throw new MsgxError("CONFLICT", `task ${taskId} kept changing during the cancel`);
    }
  }

  /**
   * Writes the CANCELLED feedback of a cancel. `expected`: the status the cancel decided on
   * (`moved` when the task left it meanwhile); null: the external system confirmed the cancel.
   */
  async #recordCancel(seen: TaskRecord, requestId: string, reason: string, expected: TaskStatus | null): Promise<TaskCancelAnswer | "moved"> {
    const now = this.#clock.now();
    const feedback: TaskFeedback = { taskId: seen.taskId, externalEventId: requestId, status: TaskFeedbackStatus.CANCELLED, reason };
    const answer = await this.#store.transaction(async (tx): Promise<TaskCancelAnswer | "moved"> => {
      const task = await this.#lock(tx.lockTask(seen.taskId), seen.taskId);
      if (task.status === TaskStatus.CANCEL_PENDING_CALLBACK || task.status === TaskStatus.CANCELLED) return { outcome: "already", task };
      if (expected !== null && task.status !== expected) return "moved";
      const decision = decideTaskFeedback(task, await tx.findFeedback(feedback), feedback, this.#routing, now);
      if (decision.kind !== "logged" || decision.entry.outcome !== "APPLIED" || decision.task === null) {
        const why = decision.kind === "logged" ? (decision.entry.reason ?? decision.entry.outcome) : decision.kind;
        throw new TaskRequestError(task.status === TaskStatus.FINISHED_PENDING_CALLBACK || task.status === TaskStatus.FINISHED ? "TOO_LATE" : "ILLEGAL_STATE", `task ${task.taskId}: ${why}`);
      }
      await tx.insertFeedback(decision.entry);
      await saveTaskChange(tx, task, decision.task, { kind: "cancel", requestId, reason }, this.#caller());
      if (decision.event !== null) await tx.appendEvents([decision.event]);
      return { outcome: "cancelled", task: decision.task };
    });
    if (answer !== "moved" && answer.outcome === "cancelled") {
      this.#logger.info("task cancelled", { taskId: seen.taskId, requestId, eventId: answer.task.lastEventId, from: seen.status });
    }
    return answer;
  }

  /**
   * Replays dead owner events (through the same preflight-and-audit idea as the pipeline's
   * replay): selects the tasks in *_PENDING_CALLBACK whose owner reported FAILURE, matching every
   * given filter field (at least one is required), and lists them with, for asked-for ids that do
   * not qualify, why. A dry run stops there. Otherwise, in one transaction, each task still
   * eligible gets its last event published again (a new outbox row, same `eventId`, header
   * `msgx-replay: <replayId>`) and its `callbackError` cleared, and one audit row (`task_replay`)
   * records who, why, the filter and the tasks. At most `MAX_TASK_REPLAY` tasks per call.
   */
  async replay(filter: TaskReplayFilter, request: TaskReplayRequest): Promise<TaskReplayResult> {
    const by = requiredText(request.by, "by", 256);
    const reason = requiredText(request.reason, "reason", 2_000);
    const f = checkTaskReplayFilter(filter);
    const dryRun = request.dryRun === true;
    const candidates = await this.#replayCandidates(f);
    const eligible = candidates.filter((c) => c.eligible).map((c) => c.taskId);
    if (dryRun || eligible.length === 0) return { replayId: null, dryRun, candidates, replayed: [] };
    const feedback = new Map(await Promise.all(eligible.map(async (id) => [id, await this.#store.feedback(id)] as const)));
    const replayId = this.#ids();
    const now = this.#clock.now();
    const replayed = await this.#store.transaction(async (tx) => {
      const done: string[] = [];
      for (const taskId of eligible) {
        // Re-checked under the lock: the owner may have called back since the preflight.
        const task = await tx.lockTask(taskId);
        if (task === undefined || !taskReplayEligibility(task).eligible) continue;
        const next = evolveTask(task, { type: "replayed" }, now);
        await saveTaskChange(tx, task, next, { kind: "replay", replayId, by }, this.#caller());
        await tx.appendEvents([pendingEventDraft(next, feedback.get(taskId) ?? [], this.#routing, { [TaskEventHeader.REPLAY]: replayId })]);
        done.push(taskId);
      }
      if (done.length > 0) await tx.insertReplay({ replayId, by, reason, filter: f, taskIds: done, at: now });
      return done;
    });
    this.#logger.warn("task events replayed", { replayId, by, reason, tasks: replayed.length, taskIds: replayed.slice(0, 20).join(",") });
    return { replayId: replayed.length > 0 ? replayId : null, dryRun, candidates, replayed };
  }

  async #replayCandidates(f: TaskReplayFilter): Promise<readonly TaskReplayCandidate[]> {
    const filter: TaskFilter = {
      statuses: PENDING_CALLBACK_STATUSES,
      callbackFailed: true,
      ...(f.taskIds !== undefined ? { taskIds: f.taskIds } : {}),
      ...(f.owner !== undefined ? { ownerService: f.owner } : {}),
      ...(f.handlerCode !== undefined ? { handlerCode: f.handlerCode } : {}),
      limit: MAX_TASK_REPLAY,
    };
    const found = await this.#store.list(filter);
    const seen = new Set(found.map((t) => t.taskId));
    // Asked-for ids that do not qualify still get a line saying why.
    const missing = (f.taskIds ?? []).filter((id) => !seen.has(id));
    const others = missing.length === 0 ? [] : await this.#store.list({ taskIds: missing });
    const known = new Set(others.map((t) => t.taskId));
    const unknown: TaskReplayCandidate[] = missing
      .filter((id) => !known.has(id))
      .map((taskId) => ({ taskId, status: null, ownerService: null, handlerCode: null, eventId: null, callbackError: null, eligible: false, refusal: "no such task" }));
    return [...found, ...others]
      .map((t) => {
        const c = taskReplayCandidate(t);
        if (c.eligible || (f.owner === undefined || t.ownerService === f.owner) && (f.handlerCode === undefined || t.handlerCode === f.handlerCode)) return c;
        return { ...c, eligible: false, refusal: "does not match the owner / handler code asked for" };
      })
      .concat(unknown)
      .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#store.get(taskId);
  }

  /** The task with that number; a value that is no task number is `INVALID`. */
  /** The task's history (its lineage), oldest first; empty for an unknown task. */
  history(taskId: string): Promise<readonly TaskHistoryEntry[]> {
    assertTaskId(taskId);
    return this.#store.history(taskId);
  }

  /** One page of the task's history, newest first (`TaskStore.historyPage`). */
  historyPage(taskId: string, query: LineageQuery): Promise<TaskHistoryPage> {
    assertTaskId(taskId);
    return this.#store.historyPage(taskId, query);
  }

  #caller(): ApiCaller | null {
    return this.#callerOf() ?? null;
  }

  async getByTaskNo(taskNo: string): Promise<TaskRecord | undefined> {
    assertTaskNo(taskNo);
    return this.#store.getByTaskNo(taskNo);
  }

  /** Tasks by filter, ascending by taskId (the store's `list`). */
  list(filter: TaskFilter): Promise<readonly TaskRecord[]> {
    return this.#store.list(filter);
  }

  async #lock(pending: Promise<TaskRecord | undefined>, taskId: string): Promise<TaskRecord> {
    const task = await pending;
    if (task === undefined) throw new TaskRequestError("NOT_FOUND", `no task ${taskId}`);
    return task;
  }
}
