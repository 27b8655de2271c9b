import { MsgxError } from "@msgx/core";
import type { TaskEventMessage } from "./task-event.js";
import { isRoutingCode } from "./task-record.js";

/** What a handler gets besides the event. */
export interface TaskHandlerContext<Tx> {
  /**
   * The transaction the consume log row commits in: write the business changes through it, and
   * they commit with the row or not at all (so a redelivered event never applies them twice).
   */
  readonly tx: Tx;
  /** 1 for the first try of this event, then 2, 3, ... after failures. */
  readonly attempt: number;
  /** The relay's `msgx-event-id` header of the record, when present. */
  readonly deliveryEventId: string | null;
  readonly signal?: AbortSignal;
}

/**
 * The business logic of one task type in an owner service (seed 001 §6.1: the successor of an
 * old `handle_class` such as `StockAreaCallTubeTask#updateTaskStatus`). A handler throws to fail
 * the attempt: its transaction rolls back and the event is retried with backoff, then
 * dead-lettered. Throw `MsgxError("DEPENDENCY_UNAVAILABLE")` for an outage of something the
 * handler needs: that pauses the consumer without spending an attempt.
 */
export interface TaskEventHandler<Tx> {
  readonly handlerCode: string;
  onTaskFinished(event: TaskEventMessage, ctx: TaskHandlerContext<Tx>): Promise<void>;
  onTaskCancelled(event: TaskEventMessage, ctx: TaskHandlerContext<Tx>): Promise<void>;
  /**
   * Progress from the executing system (`TASK_EXECUTING`), in the same consume log transaction and
   * with the same dedupe, budget and dead-lettering as the others, but the task service expects no
   * callback for it. Optional: without it the event is acknowledged (SUCCEEDED, nothing reported).
   */
  onTaskExecuting?(event: TaskEventMessage, ctx: TaskHandlerContext<Tx>): Promise<void>;
  /**
   * The task is past its deadline or heartbeat timeout (`TASK_OVERDUE`, `overdueReason`); its
   * status did not change: cancel it (`POST /task/v1/tasks/{id}/cancel`) or let it run. Handled
   * like `onTaskExecuting` (no callback); optional.
   */
  onTaskOverdue?(event: TaskEventMessage, ctx: TaskHandlerContext<Tx>): Promise<void>;
}

/**
 * The owner's handlers by `handlerCode` (seed 001 §6.3). Built once at start: a duplicate or
 * malformed code refuses to start (`MsgxError("CONFIG")`) naming the code, so two handlers can
 * never silently shadow each other.
 */
export class TaskHandlerRegistry<Tx> {
  readonly #handlers: ReadonlyMap<string, TaskEventHandler<Tx>>;

  constructor(handlers: readonly TaskEventHandler<Tx>[]) {
    const map = new Map<string, TaskEventHandler<Tx>>();
    const position = new Map<string, number>();
    for (const [i, h] of handlers.entries()) {
      if (!isRoutingCode(h.handlerCode)) throw new MsgxError("CONFIG", `task handler #${i}: invalid handlerCode ${JSON.stringify(h.handlerCode)}`);
      const first = position.get(h.handlerCode);
      if (first !== undefined) {
        throw new MsgxError("CONFIG", `duplicate task handler code ${h.handlerCode}: handlers #${first} and #${i} both claim it`);
      }
      map.set(h.handlerCode, h);
      position.set(h.handlerCode, i);
    }
    if (map.size === 0) throw new MsgxError("CONFIG", "no task handlers registered");
    this.#handlers = map;
  }

  /** The registered codes, in registration order. */
  get codes(): readonly string[] {
    return [...this.#handlers.keys()];
  }

  get(handlerCode: string): TaskEventHandler<Tx> | undefined {
    return this.#handlers.get(handlerCode);
  }

  /** Why a code has no handler, for the dead letter. */
  unknownReason(handlerCode: string): string {
    return `unknown handler code ${JSON.stringify(handlerCode)}: no task handler is registered for it (registered: ${this.codes.join(", ")})`;
  }
}
