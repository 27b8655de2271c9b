import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { TaskEventType } from "./task-event.js";
import { evolveTask } from "./task-machine.js";
import { saveTaskChange } from "./save-task-change.js";
import { decideTaskOverdue, taskOverdueText, type TaskOverdueReason } from "./task-overdue.js";
import type { TaskRecord } from "./task-record.js";
import { DEFAULT_TASK_ROUTING, taskEventDraft, type TaskRouting } from "./task-routing-config.js";
import type { TaskStore } from "./task-store.js";

/** Tasks per step by default. */
export const DEFAULT_TASK_OVERDUE_BATCH = 50;

/** What one `step` did. */
export interface TaskOverdueStep {
  /** TASK_OVERDUE events written, per cause. */
  readonly overdue: Readonly<Record<TaskOverdueReason, number>>;
  /** True when the batch was full: call again at once. */
  readonly more: boolean;
}

export interface TaskOverdueJobDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly routing?: TaskRouting;
  readonly logger?: Logger;
}

/**
 * Deadlines and heartbeats (Temporal's start-to-close and heartbeat timeouts): every DISPATCHED or
 * EXECUTING task past its deadline, or without progress from the executing system for its
 * heartbeat timeout, gets one TASK_OVERDUE event to its owner per cause (`decideTaskOverdue`),
 * written through the task outbox in the transaction that marks the task (`overdue` transition:
 * version + 1, status unchanged). The mark is what makes it once: a second runner, or this one
 * after a restart, finds the task marked under its lock and writes nothing; an EXECUTING feedback
 * clears the heartbeat mark, so the next silence is reported again. Bounded per step, one
 * transaction per task; `step` never sleeps.
 */
export class TaskOverdueJob {
  readonly #deps: TaskOverdueJobDeps;
  readonly #batchSize: number;
  readonly #logger: Logger;
  readonly #routing: TaskRouting;

  constructor(deps: TaskOverdueJobDeps, options: { readonly batchSize?: number } = {}) {
    this.#deps = deps;
    this.#batchSize = options.batchSize ?? DEFAULT_TASK_OVERDUE_BATCH;
    this.#logger = deps.logger ?? silentLogger;
    this.#routing = deps.routing ?? DEFAULT_TASK_ROUTING;
    if (!Number.isSafeInteger(this.#batchSize) || this.#batchSize < 1) throw new RangeError(`batchSize must be a positive integer: ${this.#batchSize}`);
  }

  async step(signal?: AbortSignal): Promise<TaskOverdueStep> {
    const { store, clock } = this.#deps;
    const now = clock.now();
    const candidates = await store.overdueCandidates(now, this.#batchSize);
    const overdue: Record<TaskOverdueReason, number> = { DEADLINE: 0, HEARTBEAT: 0 };
    for (const seen of candidates) {
      signal?.throwIfAborted();
      const marked = await store.transaction(async (tx) => {
        const locked = await tx.lockTask(seen.taskId);
        if (locked === undefined) return [];
        // Decided again under the lock: a feedback or another runner may have come meanwhile.
        let task: TaskRecord = locked;
        const done: { reason: TaskOverdueReason; task: TaskRecord }[] = [];
        for (const reason of decideTaskOverdue(locked, now)) {
          const next = evolveTask(task, { type: "overdue", reason }, now);
          await saveTaskChange(tx, task, next, { kind: "overdue", reason }, null);
          task = next;
          await tx.appendEvents([taskEventDraft(task, TaskEventType.TASK_OVERDUE, `overdue:${reason}`, this.#routing, now, { reason: taskOverdueText(locked, reason, now), overdueReason: reason })]);
          done.push({ reason, task });
        }
        return done;
      });
      for (const { reason, task } of marked) {
        overdue[reason] += 1;
        this.#logger.warn("task overdue: TASK_OVERDUE sent to its owner", {
          taskId: task.taskId,
          owner: task.ownerService,
          handlerCode: task.handlerCode,
          status: task.status,
          reason,
          deadlineAt: task.deadlineAt,
          lastProgressAt: task.lastProgressAt,
        });
      }
    }
    return { overdue, more: candidates.length === this.#batchSize };
  }
}
