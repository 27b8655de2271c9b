import { errorMessage, isMsgxError, isOutage } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { SimulatedCrashMarker } from "@msgx/core";
import type { TaskCallbackPort } from "./task-callback-port.js";
import { taskCallbackResultOf, type TaskConsumeLogEntry } from "./task-consume-log.js";
import type { TaskConsumeLogStore } from "./task-consume-log-store.js";
import { exponentialBackoff } from "@msgx/core";

export interface TaskCallbackSenderOptions {
  /** Rows reported per step. */
  readonly batchSize: number;
  /** Backoff of a failed callback: initial wait, doubled per failure, capped. Retries never stop. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export const DEFAULT_TASK_CALLBACK_SENDER_OPTIONS: TaskCallbackSenderOptions = { batchSize: 20, initialBackoffMs: 1_000, maxBackoffMs: 60_000 };

export interface TaskCallbackSenderDeps<Tx> {
  readonly log: TaskConsumeLogStore<Tx>;
  readonly port: TaskCallbackPort;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** Where tests crash: after the task service recorded a callback, before the row is marked SENT. */
  readonly failpoint?: (name: "callback.after-report") => void;
}

/** What one step did; `next` is when to step again (null: nothing due, wait for a nudge or poll). */
export interface TaskCallbackStep {
  readonly sent: readonly string[];
  readonly deferred: readonly string[];
  readonly rejected: readonly string[];
  readonly next: number | null;
}

/**
 * Reports finished consume log rows to the task service (SUCCESS for SUCCEEDED, FAILURE with the
 * reason for DEAD), from the rows' callback bookkeeping: the row that records the handler's
 * success is committed with the business writes, so the report cannot be lost. A failed report
 * backs off and is retried without limit (the task waits in *_PENDING_CALLBACK meanwhile); a
 * refusal for good ends REJECTED. An outage ends the step early. Reports are at least once.
 */
export class TaskCallbackSender<Tx> {
  readonly #deps: TaskCallbackSenderDeps<Tx>;
  readonly #options: TaskCallbackSenderOptions;
  readonly #logger: Logger;

  constructor(deps: TaskCallbackSenderDeps<Tx>, options: Partial<TaskCallbackSenderOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_TASK_CALLBACK_SENDER_OPTIONS, ...options };
    this.#logger = deps.logger ?? silentLogger;
    if (!(this.#options.batchSize >= 1)) throw new RangeError("batchSize must be at least 1");
  }

  async step(signal?: AbortSignal): Promise<TaskCallbackStep> {
    const { log, clock } = this.#deps;
    const now = clock.now();
    const rows = await log.dueCallbacks(now, this.#options.batchSize);
    const sent: string[] = [];
    const deferred: string[] = [];
    const rejected: string[] = [];
    let next: number | null = rows.length === this.#options.batchSize ? now : null;
    for (const row of rows) {
      signal?.throwIfAborted();
      const outcome = await this.#report(row, now, signal);
      (outcome.kind === "sent" ? sent : outcome.kind === "rejected" ? rejected : deferred).push(row.eventId);
      if (outcome.kind === "deferred") {
        next = next === null ? outcome.at : Math.min(next, outcome.at);
        if (outcome.outage) break;
      }
    }
    return { sent, deferred, rejected, next };
  }

  async #report(
    row: TaskConsumeLogEntry,
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<{ kind: "sent" } | { kind: "rejected" } | { kind: "deferred"; at: number; outage: boolean }> {
    const { log, port } = this.#deps;
    const result = taskCallbackResultOf(row);
    try {
      await port.report({ taskId: row.taskId, eventId: row.eventId, result, message: result === "FAILURE" ? row.errorMsg : null }, signal);
    } catch (e) {
      if (e instanceof SimulatedCrashMarker || signal?.aborted === true) throw e;
      const error = errorMessage(e);
      if (isMsgxError(e) && !e.retriable) {
        await log.settleCallback(row.eventId, "REJECTED", error, now);
        this.#logger.error("task callback rejected by the task service", { eventId: row.eventId, taskId: row.taskId, error });
        return { kind: "rejected" };
      }
      const attempts = row.callbackAttempts + 1;
      const at = now + exponentialBackoff({ initialMs: this.#options.initialBackoffMs, maxMs: this.#options.maxBackoffMs }, attempts);
      await log.deferCallback(row.eventId, attempts, at, error);
      this.#logger.warn("task callback failed; backing off", { eventId: row.eventId, taskId: row.taskId, attempts, error, retryAt: at });
      return { kind: "deferred", at, outage: isOutage(e) };
    }
    this.#deps.failpoint?.("callback.after-report");
    await log.settleCallback(row.eventId, "SENT", null, now);
    return { kind: "sent" };
  }
}
