import type { DeliveryTopics } from "@msgx/core";
import { EventType, type OutboxEventDraft, type Target } from "@msgx/core";
import type { ReliableMessage } from "./reliable-message.js";

/**
 * How a reliable message travels through the outbox relay (`MsgDispatcher`).
 *
 * - Target: one per consumer queue, `KAFKA:rmq.<queue>`. The relay keeps EVENT_ID order and
 *   backs off per target, so a queue whose records are refused blocks only itself; run one
 *   dispatcher per queue.
 * - Topic: one per queue, `rmq.<queue>` by default ({@link reliableMessageTopics}), so a
 *   consumer group subscribes to its queue only.
 * - Record key: the message's business `key` when it has one (so one key stays on one partition,
 *   in send order), else the message id; either way every send of a message lands on the same
 *   partition ({@link recordKeyOf}).
 * - Record value: the JSON {@link ReliableMessageEnvelope}. The event id header differs per send; the
 *   consumer dedupes on `messageId`, which every send of the message carries.
 * - Outbox row: `eventType` UPSERT, `stateVersion` the send number, `sourceMsgId` 0 (the row
 *   does not come from the mailbox).
 */
export const RELIABLE_MESSAGE_TARGET_PREFIX = "KAFKA:rmq.";
export const RELIABLE_MESSAGE_TOPIC_PREFIX = "rmq.";
/**
 * The dead-letter target and topic of a queue: `KAFKA:rmq-dlq.<queue>` → `rmq-dlq.<queue>`. Every
 * transition into DEAD writes one row there (the envelope plus `deadReason`) in the same
 * transaction. "KAFKA:rmq." does not prefix "KAFKA:rmq-dlq.", so a queue relay never takes DLQ rows.
 */
export const RELIABLE_MESSAGE_DLQ_TARGET_PREFIX = "KAFKA:rmq-dlq.";
export const RELIABLE_MESSAGE_DLQ_TOPIC_PREFIX = "rmq-dlq.";
/** The `schema` field of every envelope; a consumer refuses other versions. */
export const RELIABLE_MESSAGE_ENVELOPE_SCHEMA = "msgx.reliable-message/1";

/**
 * The target and topic of one subscription of a queue: `KAFKA:rmq-sub.<queue>.<subscription>` →
 * `rmq-sub.<queue>.<subscription>` (issue 36 item 1). Every send of the subscription, first and
 * resends, goes there, so a resend for one subscription never reaches another; a subscription name
 * has no dot, so the part after the last dot names it. "KAFKA:rmq." prefixes neither this nor the DLQ target.
 */
export const RELIABLE_SUBSCRIPTION_TARGET_PREFIX = "KAFKA:rmq-sub.";
export const RELIABLE_SUBSCRIPTION_TOPIC_PREFIX = "rmq-sub.";

/** The delivery target of `subscription` of `queue`. */
export const reliableSubscriptionTarget = (queue: string, subscription: string): Target => `${RELIABLE_SUBSCRIPTION_TARGET_PREFIX}${queue}.${subscription}`;

/** The queue and subscription a subscription target's rest (`<queue>.<subscription>`) names. */
export function splitSubscriptionTarget(rest: string): { readonly queue: string; readonly subscription: string } {
  const dot = rest.lastIndexOf(".");
  return { queue: rest.slice(0, dot), subscription: rest.slice(dot + 1) };
}

/** The delivery target of `queue`. */
export const reliableMessageTarget = (queue: string): Target => `${RELIABLE_MESSAGE_TARGET_PREFIX}${queue}`;

/** The dead-letter target of `queue`. */
export const reliableMessageDlqTarget = (queue: string): Target => `${RELIABLE_MESSAGE_DLQ_TARGET_PREFIX}${queue}`;

/** The topic map for the dead-letter dispatchers of `queues`: `KAFKA:rmq-dlq.<q>` → `<prefix><q>`. */
export function reliableMessageDlqTopics(queues: readonly string[], topicPrefix = RELIABLE_MESSAGE_DLQ_TOPIC_PREFIX): DeliveryTopics {
  return Object.fromEntries(queues.map((q) => [reliableMessageDlqTarget(q), `${topicPrefix}${q}`]));
}

/** The topic map for the dispatchers of `queues`: target `KAFKA:rmq.<q>` → topic `<prefix><q>`. */
export function reliableMessageTopics(queues: readonly string[], topicPrefix = RELIABLE_MESSAGE_TOPIC_PREFIX): DeliveryTopics {
  return Object.fromEntries(queues.map((q) => [reliableMessageTarget(q), `${topicPrefix}${q}`]));
}

/** The record value a consumer receives (version {@link RELIABLE_MESSAGE_ENVELOPE_SCHEMA}). */
export interface ReliableMessageEnvelope {
  readonly schema: typeof RELIABLE_MESSAGE_ENVELOPE_SCHEMA;
  readonly messageId: string;
  readonly consumerQueue: string;
  readonly dataType: string | null;
  /** The producer's message text, unchanged. */
  readonly body: string;
  /** Which send this is (1 for the first); a record with a larger number is a resend. */
  readonly sendCount: number;
  readonly field1: string | null;
  readonly field2: string | null;
  readonly field3: string | null;
  /** The producer's application headers, null when none (absent in envelopes from before: read as null). */
  readonly headers: Readonly<Record<string, string>> | null;
  /** The producer's business key, null when none (absent in envelopes from before: read as null). */
  readonly key: string | null;
  /** When the message was created and when this send was written (epoch ms). */
  readonly createdAt: number;
  readonly sentAt: number;
  /** On a subscription's topic only: the subscription this record is for (absent on a queue without subscriptions). */
  readonly subscription?: string;
}

/** The envelope of `message`'s current send (a SENDING record right after a send event). */
export function envelopeOf(message: ReliableMessage): ReliableMessageEnvelope {
  return {
    schema: RELIABLE_MESSAGE_ENVELOPE_SCHEMA,
    messageId: message.messageId,
    consumerQueue: message.consumerQueue,
    dataType: message.dataType,
    body: message.body,
    sendCount: message.sendCount,
    field1: message.field1,
    field2: message.field2,
    field3: message.field3,
    headers: message.headers,
    key: message.key,
    createdAt: message.createdAt,
    sentAt: message.lastSentAt ?? message.updatedAt,
  };
}

/** What a dead-letter record carries: the envelope of the last send and why the message died. */
export interface ReliableMessageDeadLetter extends ReliableMessageEnvelope {
  readonly deadReason: string;
}

/** The dead-letter row of `message` (a DEAD record right after the event that killed it). */
export function deadLetterDraft(message: ReliableMessage, subscription?: string): OutboxEventDraft {
  const payload: ReliableMessageDeadLetter = { ...envelopeOf(message), ...(subscription !== undefined ? { subscription } : {}), deadReason: message.lastError ?? "dead" };
  return {
    target: reliableMessageDlqTarget(message.consumerQueue),
    partitionKey: recordKeyOf(message),
    eventType: EventType.UPSERT,
    stateVersion: message.sendCount,
    payload,
    sourceMsgId: 0,
    traceparent: null,
  };
}

/** The Kafka record key of `message`'s sends and dead letter: its business key, else its id. */
export const recordKeyOf = (message: Pick<ReliableMessage, "messageId" | "key">): string => message.key ?? message.messageId;

/**
 * The outbox row that sends `message` (written in the same transaction as its new state): to the
 * queue's topic, or with `subscription` (the message as that subscription sees it) to the
 * subscription's topic, its envelope naming the subscription.
 */
export function sendDraft(message: ReliableMessage, subscription?: string): OutboxEventDraft {
  return {
    target: subscription === undefined ? reliableMessageTarget(message.consumerQueue) : reliableSubscriptionTarget(message.consumerQueue, subscription),
    partitionKey: recordKeyOf(message),
    eventType: EventType.UPSERT,
    stateVersion: message.sendCount,
    payload: subscription === undefined ? envelopeOf(message) : { ...envelopeOf(message), subscription },
    sourceMsgId: 0,
    traceparent: null,
  };
}

export type ReliableMessageEnvelopeParse = { readonly ok: true; readonly envelope: ReliableMessageEnvelope } | { readonly ok: false; readonly reason: string };

/**
 * Reads a record value back; anything that is not a version-1 envelope is refused with the reason,
 * and so is one whose `messageId` or `consumerQueue` holds a NUL character (the consume log could
 * never store its claim).
 */
export function parseReliableMessageEnvelope(value: string | null | undefined): ReliableMessageEnvelopeParse {
  if (value === null || value === undefined) return { ok: false, reason: "record has no value" };
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch {
    return { ok: false, reason: "record value is not JSON" };
  }
  if (typeof v !== "object" || v === null) return { ok: false, reason: "record value is not an object" };
  const o = v as Record<string, unknown>;
  if (o["schema"] !== RELIABLE_MESSAGE_ENVELOPE_SCHEMA) return { ok: false, reason: `unknown envelope schema ${JSON.stringify(o["schema"])}` };
  const str = (k: string) => typeof o[k] === "string";
  const strOrNull = (k: string) => o[k] === null || typeof o[k] === "string";
  const int = (k: string) => Number.isSafeInteger(o[k]);
  if (!str("messageId") || (o["messageId"] as string).length === 0) return { ok: false, reason: "envelope has no messageId" };
  const bad = ["consumerQueue", "body"].find((k) => !str(k)) ??
    ["dataType", "field1", "field2", "field3"].find((k) => !strOrNull(k)) ??
    ["sendCount", "createdAt", "sentAt"].find((k) => !int(k));
  if (bad !== undefined) return { ok: false, reason: `envelope field ${bad} is missing or of the wrong type` };
  // The consumer stores these two with its claim, and no stored text holds a NUL: such a record
  // would fail its claim on every redelivery and hold its partition for good. msgx's producers
  // refuse control characters in a message id; a record from elsewhere may carry one.
  const unstorable = ["messageId", "consumerQueue"].find((k) => (o[k] as string).includes("\0"));
  if (unstorable !== undefined) return { ok: false, reason: `envelope field ${unstorable} holds a NUL character (\\u0000), which no stored text can hold` };
  const headers = o["headers"] ?? null;
  const subscription = o["subscription"];
  if (subscription !== undefined && typeof subscription !== "string") return { ok: false, reason: "envelope field subscription is not a string" };
  if (headers !== null && (typeof headers !== "object" || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== "string"))) {
    return { ok: false, reason: "envelope field headers is not an object of strings" };
  }
  const key = o["key"] ?? null;
  if (key !== null && typeof key !== "string") return { ok: false, reason: "envelope field key is not a string" };
  return {
    ok: true,
    envelope: {
      schema: RELIABLE_MESSAGE_ENVELOPE_SCHEMA,
      messageId: o["messageId"] as string,
      consumerQueue: o["consumerQueue"] as string,
      dataType: o["dataType"] as string | null,
      body: o["body"] as string,
      sendCount: o["sendCount"] as number,
      field1: o["field1"] as string | null,
      field2: o["field2"] as string | null,
      field3: o["field3"] as string | null,
      headers: headers as Readonly<Record<string, string>> | null,
      key,
      createdAt: o["createdAt"] as number,
      sentAt: o["sentAt"] as number,
      ...(subscription !== undefined ? { subscription } : {}),
    },
  };
}
