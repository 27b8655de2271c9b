import { saveTaskChange } from "./save-task-change.js";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { TaskEventHeader } from "./task-headers.js";
import { evolveTask } from "./task-machine.js";
import { awaitsCallback } from "./task-record.js";
import { pendingEventDraft } from "./task-replay.js";
import { DEFAULT_TASK_ROUTING, type TaskRouting } from "./task-routing-config.js";
import type { TaskStore } from "./task-store.js";

export interface TaskWatchdogOptions {
  /** A task waiting for its owner's callback this long since its last change is alerted on. Default 10 min. */
  readonly pendingCallbackAlertMs: number;
  /** The least time between two alerts (and redeliveries) of one task. Default 10 min. */
  readonly pendingCallbackRetryMs: number;
  /** Tasks per step. Default 50. */
  readonly batchSize: number;
}

export const DEFAULT_TASK_WATCHDOG_OPTIONS: TaskWatchdogOptions = { pendingCallbackAlertMs: 600_000, pendingCallbackRetryMs: 600_000, batchSize: 50 };

/** What one `step` did. */
export interface TaskWatchdogStep {
  /** Tasks alerted on (logged, counted). */
  readonly alerted: number;
  /** Of those, whose event was sent again (no FAILURE from the owner: its report may be lost). */
  readonly redelivered: number;
  /** True when the batch was full: call again at once. */
  readonly more: boolean;
}

export interface TaskWatchdogDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly routing?: TaskRouting;
  readonly logger?: Logger;
}

/**
 * The watchdog of tasks pending a callback: every task in *_PENDING_CALLBACK unchanged for
 * `pendingCallbackAlertMs`, and not alerted on for `pendingCallbackRetryMs`, is alerted on (an
 * error log; counted in `alerts` and on the task, `callbackAlerts`/`callbackAlertAt`). When the
 * owner never reported FAILURE, its event is sent again (a new outbox row, same `eventId`, header
 * `msgx-redeliver: watchdog`): an owner that lost its callback finds the event handled and reports
 * again. A task whose owner reported FAILURE is only alerted on: it needs a replay
 * (`TaskService.replay`). Bounded per step, one transaction per task; `step` never sleeps.
 */
export class TaskWatchdogJob {
  readonly #deps: TaskWatchdogDeps;
  readonly #options: TaskWatchdogOptions;
  readonly #logger: Logger;
  readonly #routing: TaskRouting;
  #alerts = 0;

  constructor(deps: TaskWatchdogDeps, options: Partial<TaskWatchdogOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_TASK_WATCHDOG_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
    this.#logger = deps.logger ?? silentLogger;
    this.#routing = deps.routing ?? DEFAULT_TASK_ROUTING;
    for (const name of ["pendingCallbackAlertMs", "pendingCallbackRetryMs"] as const) {
      const v = this.#options[name];
      if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number: ${v}`);
    }
    if (!Number.isSafeInteger(this.#options.batchSize) || this.#options.batchSize < 1) throw new RangeError(`batchSize must be a positive integer: ${this.#options.batchSize}`);
  }

  /** Alerts since the job was built (`msgx_task_callbacks_pending_alerts_total`). */
  get alerts(): number {
    return this.#alerts;
  }

  async step(signal?: AbortSignal): Promise<TaskWatchdogStep> {
    const { store, clock } = this.#deps;
    const now = clock.now();
    const { pendingCallbackAlertMs, pendingCallbackRetryMs, batchSize } = this.#options;
    const stale = await store.stalePendingCallbacks(now - pendingCallbackAlertMs, now - pendingCallbackRetryMs, batchSize);
    let alerted = 0;
    let redelivered = 0;
    for (const seen of stale) {
      signal?.throwIfAborted();
      const redeliver = seen.callbackError === null;
      const feedback = redeliver ? await store.feedback(seen.taskId) : [];
      const done = await store.transaction(async (tx) => {
        const task = await tx.lockTask(seen.taskId);
        // Re-checked under the lock: the callback may have come meanwhile.
        if (task === undefined || !awaitsCallback(task.status) || task.version !== seen.version) return null;
        const next = evolveTask(task, { type: "callbackRedelivered" }, now);
        await saveTaskChange(tx, task, next, { kind: "watchdog" }, null);
        if (redeliver) await tx.appendEvents([pendingEventDraft(next, feedback, this.#routing, { [TaskEventHeader.REDELIVER]: "watchdog" })]);
        return next;
      });
      if (done === null) continue;
      alerted += 1;
      this.#alerts += 1;
      if (redeliver) redelivered += 1;
      this.#logger.error(redeliver ? "task pending its owner's callback too long: event sent again" : "task pending its owner's callback too long: the owner reported FAILURE, replay it", {
        taskId: done.taskId,
        owner: done.ownerService,
        handlerCode: done.handlerCode,
        status: done.status,
        eventId: done.lastEventId,
        pendingSinceMs: now - seen.updatedAt,
        alerts: done.callbackAlerts,
        callbackError: done.callbackError,
      });
    }
    return { alerted, redelivered, more: stale.length === batchSize };
  }
}
