import type { TaskEventMessage } from "./task-event.js";
import type { ValueOf } from "@msgx/core";

/**
 * The headers a task event record carries besides the relay's own (`msgx-event-id`, ...), stored
 * on its outbox row by `taskEventDraft`: the owner is the routing tag an owner's consumer filters
 * on without parsing the value; the event type and handler code are there for logs, metrics and
 * broker-side tooling. A republished event (replay, watchdog) carries one more header saying so.
 */
export const TaskEventHeader = {
  OWNER: "msgx-owner",
  TASK_EVENT: "msgx-task-event",
  HANDLER_CODE: "msgx-handler-code",
  /**
   * On a record the task service republished by an operator's replay: the replay id. An owner whose
   * consume log row of the event is DEAD resets it and runs the handler again (normal budget).
   */
  REPLAY: "msgx-replay",
  /**
   * On a record the task service republished because the owner's callback never arrived (value: who
   * asked, e.g. `watchdog`). An owner whose row is settled and its callback SENT reports again.
   */
  REDELIVER: "msgx-redeliver",
} as const;
export type TaskEventHeader = ValueOf<typeof TaskEventHeader>;

/** The task headers of a message. */
export function taskEventHeaders(event: Pick<TaskEventMessage, "ownerService" | "eventType" | "handlerCode">): Readonly<Record<string, string>> {
  return {
    [TaskEventHeader.OWNER]: event.ownerService,
    [TaskEventHeader.TASK_EVENT]: event.eventType,
    [TaskEventHeader.HANDLER_CODE]: event.handlerCode,
  };
}
