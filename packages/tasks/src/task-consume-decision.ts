import { EventHeader } from "@msgx/core";
import { backoffAfter, type RetryPolicy } from "@msgx/core";
import { TaskCallbackStatus, TaskConsumeStatus, isTaskEventSettled, type TaskConsumeLogEntry } from "./task-consume-log.js";
import { parseTaskEvent, type TaskEventMessage } from "./task-event.js";
import { TaskEventHeader } from "./task-headers.js";
import { taskTopic, type TaskRouting } from "./task-routing-config.js";

/** A consumed record as any broker client hands it over (header values as strings). */
export interface ConsumedTaskRecord {
  readonly topic: string;
  readonly partition?: number;
  readonly offset?: string;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/**
 * Whose record it is (seed 001 §6.4, first-level routing):
 * - `skip`: another owner's (acknowledged, no log row);
 * - `dead`: ours (or unattributable) but unreadable: dead-lettered under `eventId` with `reason`;
 * - `handle`: ours, parsed.
 */
export type TaskRouteVerdict =
  | { readonly action: "skip"; readonly reason: string }
  | { readonly action: "dead"; readonly eventId: string; readonly reason: string }
  | { readonly action: "handle"; readonly event: TaskEventMessage };

/**
 * Routes one record for `owner`. The owner header is checked before the value is parsed, so
 * another owner's records cost no JSON parse. With `topic-per-owner`, a record on another topic
 * is skipped. The value is authoritative: a record whose header and value name different owners
 * is dead-lettered (it was not written by the task service).
 */
export function routeTaskRecord(record: ConsumedTaskRecord, owner: string, routing: TaskRouting): TaskRouteVerdict {
  if (routing.mode === "topic-per-owner" && record.topic !== taskTopic(routing, owner)) {
    return { action: "skip", reason: `topic ${record.topic} is not ${owner}'s` };
  }
  const tag = record.headers[TaskEventHeader.OWNER];
  if (tag !== undefined && tag !== owner) return { action: "skip", reason: `owner ${tag}` };
  const parsed = parseTaskEvent(record.value);
  if (!parsed.ok) return { action: "dead", eventId: unreadableEventId(record), reason: `unreadable task event: ${parsed.reason}` };
  const { event } = parsed;
  if (event.ownerService !== owner) {
    if (tag === undefined) return { action: "skip", reason: `owner ${event.ownerService}` };
    return { action: "dead", eventId: event.eventId, reason: `owner header ${tag} disagrees with the event's ownerService ${event.ownerService}` };
  }
  return { action: "handle", event };
}

/**
 * The consume log key of a record that has no readable event id: the relay's stable event id
 * when the record has one (the same on every resend), else its position.
 */
export function unreadableEventId(record: ConsumedTaskRecord): string {
  const delivery = record.headers[EventHeader.EVENT_ID];
  if (delivery !== undefined) return `unreadable:${record.topic}:event-${delivery}`;
  return `unreadable:${record.topic}:${record.partition ?? "?"}:${record.offset ?? record.key ?? "?"}`;
}

/** What to do with an event given its consume log row. */
export type TaskPriorDecision =
  | { readonly action: "done"; readonly status: TaskConsumeStatus }
  | { readonly action: "wait"; readonly until: number }
  | { readonly action: "run"; readonly attempt: number };

/**
 * A SUCCEEDED or DEAD event is done (a redelivery is acknowledged without running the handler);
 * a FAILED one runs again once its backoff is over; a new one runs as attempt 1.
 */
export function decideConsumePrior(prior: TaskConsumeLogEntry | undefined, now: number): TaskPriorDecision {
  if (prior === undefined) return { action: "run", attempt: 1 };
  if (isTaskEventSettled(prior)) return { action: "done", status: prior.status };
  if (prior.nextAttemptAt !== null && prior.nextAttemptAt > now) return { action: "wait", until: prior.nextAttemptAt };
  return { action: "run", attempt: prior.attempts + 1 };
}

/**
 * Whether a record reopens its dead letter: it carries an operator's replay id (`msgx-replay`) and
 * the row is DEAD, and not already from this very record (a redelivery of the replay record, known
 * by its relay event id, after the rerun went DEAD again is a duplicate, not a second replay).
 */
export function shouldReopenForReplay(prior: TaskConsumeLogEntry | undefined, replayId: string | undefined, deliveryEventId: string | null): boolean {
  if (prior === undefined || prior.status !== TaskConsumeStatus.DEAD || replayId === undefined || replayId === "") return false;
  return deliveryEventId === null || prior.deliveryEventId !== deliveryEventId;
}

/**
 * A duplicate of a settled event asks the owner to report again when its report was SENT: the task
 * service redelivers an event when it never recorded the callback (watchdog, replay of a SUCCEEDED
 * event). A REJECTED report stays refused; a PENDING one is on its way anyway.
 */
export const shouldReopenCallback = (prior: Pick<TaskConsumeLogEntry, "callbackStatus">): boolean => prior.callbackStatus === TaskCallbackStatus.SENT;

export type TaskHandlerFailureDecision =
  | { readonly action: "retry"; readonly attempts: number; readonly nextAttemptAt: number }
  | { readonly action: "dead"; readonly attempts: number };

/**
 * A handler attempt failed (not an outage) after `attemptsBefore` failures: back off, or with
 * `policy.maxAttempts` failures dead-letter at once (SPEC §2.1's budget and backoff).
 */
export function decideTaskHandlerFailure(attemptsBefore: number, now: number, policy: RetryPolicy): TaskHandlerFailureDecision {
  const attempts = attemptsBefore + 1;
  if (attempts >= policy.maxAttempts) return { action: "dead", attempts };
  return { action: "retry", attempts, nextAttemptAt: now + backoffAfter(policy, attempts) };
}
