import { EventHeader } from "@msgx/core";
import { pausesDelivery } from "@msgx/core";
import { errorMessage, isOutage } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { Breaker, closedBreaker, DEFAULT_BREAKER_POLICY, type BreakerPolicy, type BreakerState } from "@msgx/core";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "@msgx/core";
import { SimulatedCrashMarker } from "@msgx/core";
import { TaskConsumeStatus, isTaskEventSettled, type TaskConsumeLogEntry, type TaskConsumeLogWrite } from "./task-consume-log.js";
import type { TaskConsumeLogStore } from "./task-consume-log-store.js";
import { decideTaskHandlerFailure, decideConsumePrior, routeTaskRecord, shouldReopenCallback, shouldReopenForReplay, type ConsumedTaskRecord } from "./task-consume-decision.js";
import type { TaskHandlerRegistry, TaskHandlerContext, TaskEventHandler } from "./task-handler-registry.js";
import { TaskEventType, expectsTaskCallback, type TaskEventMessage } from "./task-event.js";
import { TaskEventHeader } from "./task-headers.js";
import { assertTaskRouting, DEFAULT_TASK_ROUTING, type TaskRouting } from "./task-routing-config.js";
import { isRoutingCode } from "./task-record.js";

/** Where tests crash the consumer: inside the handler transaction before COMMIT, or right after it. */
export type TaskConsumeFailpoint = "consume.before-commit" | "consume.after-commit";

export interface TaskEventConsumerDeps<Tx> {
  /** The owner service this consumer runs for (`LMS`). */
  readonly owner: string;
  readonly routing?: TaskRouting;
  readonly registry: TaskHandlerRegistry<Tx>;
  readonly log: TaskConsumeLogStore<Tx>;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** Handler failures: attempts and backoff (default SPEC §2.1: 5 attempts, 1-2-4-8 s). */
  readonly policy?: RetryPolicy;
  /** Outages of the owner's database (or of what a handler needs): pause, spend no attempt. */
  readonly breaker?: BreakerPolicy;
  /** Called after a row that wants a callback committed, to wake the callback sender. */
  readonly onCallbackDue?: () => void;
  readonly failpoint?: (name: TaskConsumeFailpoint) => void;
}

/**
 * What one `handle` did. `retry` means: do not acknowledge the record; call `handle` with it again
 * at or after `at` (the broker client keeps the partition's position meanwhile).
 */
export type TaskConsumeStep =
  | { readonly did: "skipped"; readonly reason: string }
  /** `callbackReopened`: the owner's SENT report was set PENDING again (the task service asked again). */
  | { readonly did: "duplicate"; readonly eventId: string; readonly callbackReopened?: true }
  | { readonly did: "succeeded"; readonly eventId: string; readonly attempt: number }
  | { readonly did: "dead"; readonly eventId: string; readonly reason: string }
  | { readonly did: "retry"; readonly eventId: string | null; readonly at: number; readonly reason: string; readonly outage: boolean };

/**
 * The owner side of task-event routing (seed 001 §6.4, §13.2), independent of the broker client:
 * feed it each consumed record and acknowledge the record unless the step is `retry`.
 *
 * For one record: skip it unless it is this owner's (header, then value); dead-letter an
 * unreadable one; acknowledge unrun an event whose consume log row is SUCCEEDED or DEAD; find the
 * handler by `handlerCode` (unknown: dead-letter with the reason, and report FAILURE to the task
 * service); then run `onTaskFinished` / `onTaskCancelled` / `onTaskExecuting` in one consume log
 * transaction that also writes the SUCCEEDED row. A handler failure rolls back, is recorded FAILED
 * with backoff and ends DEAD when the attempts are used up. An outage spends no attempt: the
 * consumer pauses behind its breaker. `handle` never sleeps; time comes from the `Clock`.
 *
 * The task service expects a callback (SUCCESS / FAILURE) for FINISHED and CANCELLED only: a
 * `TASK_EXECUTING` row, handled or dead, reports nothing, and a handler without `onTaskExecuting`
 * (or an unknown handler code) acknowledges it (SUCCEEDED). A record with `msgx-replay` (an operator's replay) reopens a DEAD
 * row and runs the handler again under the full budget. A duplicate of a settled event whose
 * report was SENT sets the report PENDING again: the task service redelivers when it never
 * recorded it (`msgx-redeliver`), and reporting twice is harmless.
 */
export class TaskEventConsumer<Tx> {
  readonly #deps: TaskEventConsumerDeps<Tx>;
  readonly #routing: TaskRouting;
  readonly #policy: RetryPolicy;
  readonly #breakerPolicy: BreakerPolicy;
  readonly #logger: Logger;
  #breaker: BreakerState = closedBreaker;

  constructor(deps: TaskEventConsumerDeps<Tx>) {
    if (!isRoutingCode(deps.owner)) throw new TypeError(`not a valid owner service: ${JSON.stringify(deps.owner)}`);
    this.#deps = deps;
    this.#routing = deps.routing ?? DEFAULT_TASK_ROUTING;
    assertTaskRouting(this.#routing);
    this.#policy = deps.policy ?? DEFAULT_RETRY_POLICY;
    this.#breakerPolicy = deps.breaker ?? DEFAULT_BREAKER_POLICY;
    this.#logger = deps.logger ?? silentLogger;
  }

  get owner(): string {
    return this.#deps.owner;
  }

  get routing(): TaskRouting {
    return this.#routing;
  }

  get breaker(): BreakerState {
    return this.#breaker;
  }

  async handle(record: ConsumedTaskRecord, signal?: AbortSignal): Promise<TaskConsumeStep> {
    const now = this.#deps.clock.now();
    if (!Breaker.mayTry(this.#breaker, now)) {
      return { did: "retry", eventId: null, at: this.#breaker.probeAt, reason: "paused: dependency unavailable", outage: true };
    }
    try {
      const step = await this.#handle(record, now, signal);
      if (Breaker.isOpen(this.#breaker)) {
        this.#logger.info("task event consumer recovered", { owner: this.owner, outageMs: now - (this.#breaker.openedAt ?? now) });
        this.#breaker = Breaker.onSuccess(this.#breaker);
      }
      return step;
    } catch (e) {
      if (e instanceof SimulatedCrashMarker || signal?.aborted === true || !pausesDelivery(e)) throw e;
      this.#breaker = Breaker.onOutage(this.#breaker, now, this.#breakerPolicy);
      this.#logger.warn("task event consumer paused: dependency unavailable", { owner: this.owner, error: errorMessage(e), retryAt: this.#breaker.probeAt });
      return { did: "retry", eventId: null, at: this.#breaker.probeAt, reason: errorMessage(e), outage: true };
    }
  }

  async #handle(record: ConsumedTaskRecord, now: number, signal: AbortSignal | undefined): Promise<TaskConsumeStep> {
    const { log, registry } = this.#deps;
    const verdict = routeTaskRecord(record, this.owner, this.#routing);
    const deliveryEventId = record.headers[EventHeader.EVENT_ID] ?? null;
    if (verdict.action === "skip") return { did: "skipped", reason: verdict.reason };
    if (verdict.action === "dead") {
      const prior = await log.get(verdict.eventId);
      if (prior !== undefined && isTaskEventSettled(prior)) return this.#duplicate(prior, now);
      const event = tryParse(record.value);
      return this.#deadLetter(
        {
          eventId: verdict.eventId,
          taskId: text(event?.["taskId"]),
          ownerService: this.owner,
          handlerCode: text(event?.["handlerCode"]) || (record.headers[TaskEventHeader.HANDLER_CODE] ?? ""),
          eventType: text(event?.["eventType"]) || (record.headers[TaskEventHeader.TASK_EVENT] ?? ""),
          payload: event ?? record.value,
          deliveryEventId,
          // Not reported to the task service: an unreadable record cannot be trusted to name the
          // right task. The dead-letter row is the record an operator works from.
          callback: false,
        },
        0,
        verdict.reason,
        now,
      );
    }
    const event = verdict.event;
    let prior = await log.get(event.eventId);
    const replayId = record.headers[TaskEventHeader.REPLAY];
    if (shouldReopenForReplay(prior, replayId, deliveryEventId)) {
      const was = prior?.errorMsg ?? "";
      prior = await log.reopenDead(event.eventId, `replay ${replayId ?? ""}; was DEAD: ${was}`, deliveryEventId, now);
      this.#logger.info("task event replayed: dead letter reopened", { owner: this.owner, eventId: event.eventId, replayId, was });
    }
    const decision = decideConsumePrior(prior, now);
    if (decision.action === "done" && prior !== undefined) return this.#duplicate(prior, now);
    if (decision.action === "done") return { did: "duplicate", eventId: event.eventId };
    if (decision.action === "wait") return { did: "retry", eventId: event.eventId, at: decision.until, reason: prior?.errorMsg ?? "backing off", outage: false };
    const base = {
      eventId: event.eventId,
      taskId: event.taskId,
      ownerService: event.ownerService,
      handlerCode: event.handlerCode,
      eventType: event.eventType,
      payload: event,
      deliveryEventId,
    };
    const callback = expectsTaskCallback(event.eventType);
    const handler = registry.get(event.handlerCode);
    if (handler === undefined && callback) return this.#deadLetter({ ...base, callback }, prior?.attempts ?? 0, registry.unknownReason(event.handlerCode), now);
    // Progress (or an overdue warning) for a code no handler has is acknowledged like one a handler does not take:
    // nothing waits on it, and the task's final event is dead-lettered and reported with the reason.
    if (handler === undefined) this.#logger.warn("task progress event for an unknown handler code acknowledged", { owner: this.owner, eventId: event.eventId, handlerCode: event.handlerCode });

    const attempt = decision.attempt;
    try {
      const outcome = await log.transaction(async (tx) => {
        const claimed = await tx.claim(event.eventId);
        if (claimed !== undefined && isTaskEventSettled(claimed)) return "duplicate" as const;
        const ctx: TaskHandlerContext<Tx> = { tx: tx.handle, attempt, deliveryEventId, ...(signal === undefined ? {} : { signal }) };
        if (handler !== undefined) await runHandler(handler, event, ctx);
        this.#deps.failpoint?.("consume.before-commit");
        await tx.succeed({ ...base, status: TaskConsumeStatus.SUCCEEDED, errorMsg: null, attempts: attempt - 1, nextAttemptAt: null, callback, at: now });
        return "succeeded" as const;
      });
      this.#deps.failpoint?.("consume.after-commit");
      if (outcome === "duplicate") return { did: "duplicate", eventId: event.eventId };
      this.#logger.info("task event handled", { owner: this.owner, eventId: event.eventId, handlerCode: event.handlerCode, eventType: event.eventType, attempt });
      if (callback) this.#deps.onCallbackDue?.();
      return { did: "succeeded", eventId: event.eventId, attempt };
    } catch (e) {
      if (e instanceof SimulatedCrashMarker || signal?.aborted === true || isOutage(e)) throw e;
      const error = `${e instanceof Error ? e.name : "Error"}: ${errorMessage(e)}`;
      const failure = decideTaskHandlerFailure(attempt - 1, now, this.#policy);
      if (failure.action === "dead") {
        return this.#deadLetter({ ...base, callback }, failure.attempts, `attempts exhausted (${failure.attempts}); last: ${error}`, now);
      }
      await log.recordFailure({ ...base, status: TaskConsumeStatus.FAILED, errorMsg: error, attempts: failure.attempts, nextAttemptAt: failure.nextAttemptAt, callback: false, at: now });
      this.#logger.warn("task handler failed; backing off", { owner: this.owner, eventId: event.eventId, attempts: failure.attempts, error, retryAt: failure.nextAttemptAt });
      return { did: "retry", eventId: event.eventId, at: failure.nextAttemptAt, reason: error, outage: false };
    }
  }

  /** A settled event again: acknowledged unrun; a SENT report is set PENDING again (see the class). */
  async #duplicate(prior: TaskConsumeLogEntry, now: number): Promise<TaskConsumeStep> {
    if (!shouldReopenCallback(prior) || !(await this.#deps.log.reopenCallback(prior.eventId, now))) return { did: "duplicate", eventId: prior.eventId };
    this.#logger.info("task event redelivered: reporting again", { owner: this.owner, eventId: prior.eventId, taskId: prior.taskId, status: prior.status });
    this.#deps.onCallbackDue?.();
    return { did: "duplicate", eventId: prior.eventId, callbackReopened: true };
  }

  async #deadLetter(
    row: Omit<TaskConsumeLogWrite, "status" | "errorMsg" | "attempts" | "nextAttemptAt" | "at">,
    attempts: number,
    reason: string,
    now: number,
  ): Promise<TaskConsumeStep> {
    await this.#deps.log.recordFailure({ ...row, status: TaskConsumeStatus.DEAD, errorMsg: reason, attempts, nextAttemptAt: null, at: now });
    this.#logger.error("task event dead-lettered", { owner: this.owner, eventId: row.eventId, taskId: row.taskId, handlerCode: row.handlerCode, reason });
    if (row.callback) this.#deps.onCallbackDue?.();
    return { did: "dead", eventId: row.eventId, reason };
  }
}

async function runHandler<Tx>(handler: TaskEventHandler<Tx>, event: TaskEventMessage, ctx: TaskHandlerContext<Tx>): Promise<void> {
  switch (event.eventType) {
    case TaskEventType.TASK_FINISHED:
      return handler.onTaskFinished(event, ctx);
    case TaskEventType.TASK_CANCELLED:
      return handler.onTaskCancelled(event, ctx);
    case TaskEventType.TASK_EXECUTING:
      // Progress is optional to handle: without the method the event is simply acknowledged.
      if (handler.onTaskExecuting !== undefined) await handler.onTaskExecuting(event, ctx);
      return;
    case TaskEventType.TASK_OVERDUE:
      // The same for overdue warnings: the owner decides (cancel, wait) when it handles them.
      if (handler.onTaskOverdue !== undefined) await handler.onTaskOverdue(event, ctx);
      return;
  }
}

function tryParse(value: string | null): Record<string, unknown> | undefined {
  if (value === null) return undefined;
  try {
    const v: unknown = JSON.parse(value);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");
