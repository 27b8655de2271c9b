import { MsgxError } from "@msgx/core";
import { EventType, type OutboxEventDraft, type Target } from "@msgx/core";
import type { DeliveryTopics } from "@msgx/core";
import { taskEventMessage, type TaskEventExtras, type TaskEventType } from "./task-event.js";
import { taskEventHeaders } from "./task-headers.js";
import { isRoutingCode, type TaskRecord } from "./task-record.js";
import { TaskRequestError } from "./task-request-error.js";

/**
 * How task events reach their owner (seed 001 §4).
 *
 * - `owner-header` (default, the seed's recommendation): one topic for every owner; each record
 *   carries the owner in the `msgx-owner` header (the seed's "Tag") and an owner's consumer
 *   skips records of other owners. One outbox target, `KAFKA:task`.
 * - `topic-per-owner`: one topic per owner (`{owner}` in `topicPattern` is replaced), for strict
 *   isolation; the header is still set. One outbox target per owner, `KAFKA:task:<owner>`, so one
 *   owner's event in backoff never holds up another owner's.
 *
 * Never one topic per task type: the handler code in the record routes inside the owner.
 *
 * `owners`: the owner services the task service accepts tasks for. In `topic-per-owner` mode the
 * task service requires it (the relay has one target per known owner: a task for another owner
 * would never be delivered); in `owner-header` mode it is optional and enforced when given. An
 * owner's consumer does not need it.
 */
export type TaskRouting =
  | { readonly mode: "owner-header"; readonly topic: string; readonly owners?: readonly string[] }
  | { readonly mode: "topic-per-owner"; readonly topicPattern: string; readonly owners?: readonly string[] };

export const DEFAULT_TASK_ROUTING: TaskRouting = { mode: "owner-header", topic: "TASK_EVENT_TOPIC" };

/** The outbox target of the single task topic. */
export const TASK_TARGET = "KAFKA:task";

const TOPIC_PATTERN = /^[A-Za-z0-9._-]{1,249}$/;

/** Checks a routing configuration (`MsgxError("CONFIG")`): topic names Kafka accepts, a `{owner}` slot, owner codes. */
export function assertTaskRouting(routing: TaskRouting): void {
  for (const owner of routing.owners ?? []) assertOwner(owner);
  if (routing.mode === "owner-header") {
    if (!TOPIC_PATTERN.test(routing.topic)) throw new MsgxError("CONFIG", `task topic is not a valid topic name: "${routing.topic}"`);
    return;
  }
  if (!routing.topicPattern.includes("{owner}")) {
    throw new MsgxError("CONFIG", `topicPattern must contain {owner}: "${routing.topicPattern}"`);
  }
  if (!TOPIC_PATTERN.test(routing.topicPattern.replaceAll("{owner}", "X"))) {
    throw new MsgxError("CONFIG", `topicPattern does not give valid topic names: "${routing.topicPattern}"`);
  }
}

function assertOwner(owner: string): void {
  if (!isRoutingCode(owner)) throw new MsgxError("CONFIG", `not a valid owner service: "${owner}"`);
}

/**
 * Throws `TaskRequestError("UNKNOWN_OWNER")` unless the routing accepts tasks for `owner`: any
 * owner when no `owners` list is configured (only allowed in `owner-header` mode), else one of them.
 */
export function assertKnownOwner(routing: TaskRouting, owner: string): void {
  const owners = routing.owners;
  if (owners === undefined || owners.includes(owner)) return;
  throw new TaskRequestError(
    "UNKNOWN_OWNER",
    `owner service "${owner}" is not configured for task routing (known: ${owners.length === 0 ? "none" : owners.join(", ")})`,
  );
}

/** The outbox target an owner's events are written to. */
export function taskTarget(routing: TaskRouting, owner: string): Target {
  assertOwner(owner);
  return routing.mode === "owner-header" ? TASK_TARGET : `${TASK_TARGET}:${owner}`;
}

/** The topic an owner's events are published on (and its consumer subscribes to). */
export function taskTopic(routing: TaskRouting, owner: string): string {
  assertOwner(owner);
  return routing.mode === "owner-header" ? routing.topic : routing.topicPattern.replaceAll("{owner}", owner);
}

/**
 * The targets a relay must drain, one `MsgDispatcher` each: `KAFKA:task`, or one per owner in
 * `topic-per-owner` mode (the owners must then be known to the relay's configuration).
 */
export function taskTargets(routing: TaskRouting, owners: readonly string[] = routing.owners ?? []): readonly Target[] {
  if (routing.mode === "owner-header") return [TASK_TARGET];
  return [...new Set(owners)].map((o) => taskTarget(routing, o));
}

/** The target-to-topic map for the dispatchers of {@link taskTargets}. */
export function taskDeliveryTopics(routing: TaskRouting, owners: readonly string[] = routing.owners ?? []): DeliveryTopics {
  assertTaskRouting(routing);
  if (routing.mode === "owner-header") return { [TASK_TARGET]: routing.topic };
  return Object.fromEntries([...new Set(owners)].map((o) => [taskTarget(routing, o), taskTopic(routing, o)]));
}

/** Every topic the task events of `owners` can be on (to create them, or to recognise records). */
export function taskTopics(routing: TaskRouting, owners: readonly string[] = routing.owners ?? []): readonly string[] {
  return [...new Set(Object.values(taskDeliveryTopics(routing, owners)))];
}

/**
 * The outbox row of a task event: key = taskId (one task's events stay in order on one
 * partition), value = {@link TaskEventMessage}, stateVersion = the task's version.
 *
 * Relay fields that only fit flight events: `eventType` is `UPSERT` (the relay's own notion:
 * "a record with a value"; the task event type is in the value and the `msgx-task-event` header)
 * and `sourceMsgId` is 0 (no mailbox message caused it). The row carries the task headers
 * (`msgx-owner`, `msgx-task-event`, `msgx-handler-code`), which the relay sends as stored.
 */
export function taskEventDraft(
  task: TaskRecord,
  eventType: TaskEventType,
  externalEventId: string,
  routing: TaskRouting,
  at: number,
  extras: TaskEventExtras & { readonly headers?: Readonly<Record<string, string>> } = {},
): OutboxEventDraft {
  const { headers, ...messageExtras } = extras;
  const message = taskEventMessage(task, eventType, externalEventId, at, messageExtras);
  return {
    target: taskTarget(routing, task.ownerService),
    partitionKey: task.taskId,
    eventType: EventType.UPSERT,
    stateVersion: message.taskVersion,
    payload: message,
    sourceMsgId: 0,
    traceparent: null,
    headers: { ...taskEventHeaders(message), ...headers },
  };
}
