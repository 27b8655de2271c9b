import type { DeliveryPort, DeliveryRecord } from "../ports/delivery-port.js";
import type { TaskEventMessage } from "./task-event.js";

/**
 * The headers a task event record carries besides the relay's own (`msgx-event-id`, ...): the
 * owner is the routing tag an owner's consumer filters on without parsing the value; the event
 * type and handler code are there for logs, metrics and broker-side tooling.
 */
export const TaskEventHeader = {
  OWNER: "msgx-owner",
  TASK_EVENT: "msgx-task-event",
  HANDLER_CODE: "msgx-handler-code",
} as const;
export type TaskEventHeader = (typeof TaskEventHeader)[keyof typeof TaskEventHeader];

/** The task headers of a message. */
export function taskEventHeaders(event: Pick<TaskEventMessage, "ownerService" | "eventType" | "handlerCode">): Readonly<Record<string, string>> {
  return {
    [TaskEventHeader.OWNER]: event.ownerService,
    [TaskEventHeader.TASK_EVENT]: event.eventType,
    [TaskEventHeader.HANDLER_CODE]: event.handlerCode,
  };
}

function headersFromValue(value: string | null): Readonly<Record<string, string>> | undefined {
  if (value === null) return undefined;
  try {
    const v = JSON.parse(value) as Partial<Record<"ownerService" | "eventType" | "handlerCode", unknown>> | null;
    if (v === null || typeof v !== "object") return undefined;
    const { ownerService, eventType, handlerCode } = v;
    if (typeof ownerService !== "string" || typeof eventType !== "string" || typeof handlerCode !== "string") return undefined;
    return taskEventHeaders({ ownerService, eventType: eventType as TaskEventMessage["eventType"], handlerCode });
  } catch {
    return undefined;
  }
}

/**
 * A `DeliveryPort` that adds the task headers to every record bound for one of `topics`, read from
 * the record's own value (the task service wrote it; it names its owner). Headers a record already
 * has are kept. A value that does not parse is passed on untouched: the owner's consumer then
 * reads the owner from the value, or dead-letters the record as malformed.
 *
 * This wraps the relay's port because today a record's headers are fixed by `eventHeaders(event)`
 * in `delivery/event-headers.ts`; once outbox rows can carry their own headers (see
 * `docs/task-routing.md`, "Owner header"), `taskEventDraft` sets them and this wrapper goes away.
 * Everything the port guarantees (durability, order, failure kinds) is the wrapped port's.
 */
export function withTaskHeaders(delivery: DeliveryPort, topics: readonly string[]): DeliveryPort {
  const wanted = new Set(topics);
  const decorate = (r: DeliveryRecord): DeliveryRecord => {
    if (!wanted.has(r.topic)) return r;
    const extra = headersFromValue(r.value);
    return extra === undefined ? r : { ...r, headers: { ...extra, ...r.headers } };
  };
  return { send: (records, signal) => delivery.send(records.map(decorate), signal) };
}
