import { MsgxError } from "@msgx/core";
import type { DeliveryPort } from "@msgx/core";
import type { TaskCallbackResult, TaskCallback } from "./task-callback.js";

/**
 * How an owner service reports a handled task event back to the task service (seed 001 §9): an
 * HTTP `POST` to the task service's callback route, or a record on a result topic.
 *
 * Every implementation guarantees:
 * - `report` resolves only once the task service durably has the callback (HTTP: it answered
 *   2xx; result topic: the broker acknowledged the record with acks=all);
 * - it throws `MsgxError`: `DEPENDENCY_UNAVAILABLE` when the task service or broker cannot be
 *   reached or timed out, a retriable kind for other passing faults, and a non-retriable one when
 *   the task service refused the callback for good (unknown task, event id mismatch): the sender
 *   then stops retrying it.
 * Reporting the same callback twice is harmless: the task service answers the repeat unchanged.
 */
export interface TaskCallbackPort {
  report(callback: TaskCallback, signal?: AbortSignal): Promise<void>;
}

/** The record value of a callback on the result topic (JSON). */
export interface TaskCallbackMessage {
  readonly schemaVersion: 1;
  readonly taskId: string;
  readonly eventId: string;
  readonly result: TaskCallbackResult;
  readonly message: string | null;
  /** The owner service that handled the event. */
  readonly ownerService: string;
}

/** The header naming the callback's event id on the result topic. */
export const TASK_CALLBACK_EVENT_ID_HEADER = "msgx-callback-event-id";

/**
 * A `TaskCallbackPort` on a result topic (seed 001 §9.2, `TASK_CALLBACK_RESULT_TOPIC`): one record per
 * callback, key = taskId, through the owner's `DeliveryPort` (the Kafka producer with its safety
 * settings). The task service consumes the topic and calls `TaskService.callback`.
 */
export function resultTopicCallbackPort(delivery: DeliveryPort, topic: string, ownerService: string): TaskCallbackPort {
  return {
    async report(callback, signal) {
      const message: TaskCallbackMessage = {
        schemaVersion: 1,
        taskId: callback.taskId,
        eventId: callback.eventId,
        result: callback.result,
        message: callback.message ?? null,
        ownerService,
      };
      await delivery.send([{ topic, key: callback.taskId, value: JSON.stringify(message), headers: { [TASK_CALLBACK_EVENT_ID_HEADER]: callback.eventId } }], signal);
    },
  };
}

/**
 * Parses a result-topic record value into a callback. Throws a non-retriable
 * `MsgxError("PROTOCOL")` for a value that is not one, or holds a NUL character no store can keep
 * (the task side logs and skips it).
 */
export function parseTaskCallbackMessage(value: string | null): TaskCallback {
  const refuse = (why: string): never => {
    throw new MsgxError("PROTOCOL", `not a task callback: ${why}`, { retriable: false });
  };
  if (value === null) return refuse("no value");
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return refuse("not JSON");
  }
  if (typeof raw !== "object" || raw === null) return refuse("not an object");
  const m = raw as Partial<Record<keyof TaskCallbackMessage, unknown>>;
  if (m.schemaVersion !== 1) return refuse(`unsupported schemaVersion ${JSON.stringify(m.schemaVersion)}`);
  if (typeof m.taskId !== "string" || typeof m.eventId !== "string") return refuse("taskId and eventId must be strings");
  if (m.result !== "SUCCESS" && m.result !== "FAILURE") return refuse(`result ${JSON.stringify(m.result)}`);
  const message = typeof m.message === "string" ? m.message : null;
  // No stored text holds a NUL: a record carrying one could never be applied, only retried.
  if ([m.taskId, m.eventId, message].some((v) => v?.includes("\0"))) return refuse("a NUL character in taskId, eventId or message");
  return { taskId: m.taskId, eventId: m.eventId, result: m.result, message };
}
