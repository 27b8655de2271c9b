import { checkReliableMessageDraft, subscriptionPhase, type SubscriptionDelivery, type ReliableMessageBatchResult, type ReliableDelivery, RELIABLE_MESSAGE_TOPIC_PREFIX, ReliableMessagePhase, reliableMessagePhase, type BulkResendResult, type ReliableMessage, type ReliableMessageDraft, type ReliableMessageOutcome, type ReliableMessageService } from "@msgx/reliable";
import { isMsgxError } from "@msgx/core";
import type { QueueTopicsPort } from "../app/app-parts.js";
import { errorAnswer, HttpError } from "../http/http-error.js";
import type { ReliableMetrics } from "./reliable-metrics.js";

/** What a producer sends to prepare a message (`POST /rm/v1/messages`). */
export interface ReliableMessageInput {
  readonly messageId: string;
  readonly queue: string;
  /** Text as is; any other JSON value is stored as its JSON text. */
  readonly body: unknown;
  readonly dataType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly remark?: string | undefined;
  readonly field1?: string | undefined;
  readonly field2?: string | undefined;
  readonly field3?: string | undefined;
  readonly checkDelayMs?: number | undefined;
  /** The business key (the record key; required on a queue ordered by key). */
  readonly key?: string | undefined;
}

/** What a direct send takes: a prepare's fields without the check-back's. */
export type DirectSendInput = Omit<ReliableMessageInput, "checkDelayMs">;

/** One id's answer in a batch acknowledgement: its outcome, or the 4xx it alone would have had. */
export type BatchAckResult =
  | { readonly messageId: string; readonly ok: true; readonly applied: boolean; readonly phase: ReliableMessagePhase | null }
  | { readonly messageId: string; readonly ok: false; readonly status: number; readonly code: string | null; readonly message: string };

/** A batch acknowledgement's answer: one result per id, in the order given, and the counts. */
export interface BatchAckAnswer {
  readonly acknowledged: number;
  readonly failed: number;
  readonly results: readonly BatchAckResult[];
}

/** A message's delivery to one subscription as the API shows it: its stored fields and its phase (SENDING, DEAD, ACKNOWLEDGED). */
export type SubscriptionView = SubscriptionDelivery & { readonly phase: ReliableMessagePhase };

/**
 * A stored message as the API shows it: every stored field, its queue under `queue`, and its
 * phase; on a GET of a message of a queue with subscriptions, each subscription's delivery.
 */
export type ReliableMessageView = ReliableMessage & { readonly queue: string; readonly phase: ReliableMessagePhase; readonly subscriptions?: readonly SubscriptionView[] };

/**
 * What a command answers: whether it changed anything (false for a repeat), and the message after
 * it; for a command to one subscription, that subscription's delivery after it.
 */
export interface ReliableCommandAnswer {
  readonly applied: boolean;
  readonly message: ReliableMessageView | null;
  readonly subscription?: SubscriptionView;
}

/**
 * The producer and consumer surface of the hosted reliable-message service (`/rm/v1`,
 * docs/reliable-message.md "Hosted by the msgx runner"). Every method is idempotent; refusals throw
 * `ReliableMessageError` (4xx by code) or an `HttpError` 422 `UNKNOWN_QUEUE`.
 */
export interface ReliableMessageApi {
  /**
   * Prepare (WAITING_CONFIRM) with the delivery time `when` stored for the confirm, or save and
   * send at once with `confirm` — at `when`, when it is ahead (a delayed message). `created` is
   * false for a repeated prepare.
   */
  prepare(input: ReliableMessageInput, confirm: boolean, when?: ReliableDelivery): Promise<{ readonly created: boolean; readonly message: ReliableMessageView }>;
  /** Confirm: sent at once, or first at `when` when it is ahead (a delayed message); without `when`, at the prepare's time. */
  confirm(messageId: string, when?: ReliableDelivery): Promise<ReliableCommandAnswer>;
  cancel(messageId: string): Promise<ReliableCommandAnswer>;
  get(messageId: string): Promise<ReliableMessageView | undefined>;
  /** On a queue ordered by key: the id of the message this one waits for (the oldest unfinished older one of its key), else null. */
  heldBehind(messageId: string): Promise<string | null>;
  /**
   * The consumer's end-to-end acknowledgement; of a message of a queue with subscriptions, the
   * acknowledgement of `subscription` (required then), the message ACKNOWLEDGED with the last one.
   */
  ack(messageId: string, subscription?: string): Promise<ReliableCommandAnswer>;
  /**
   * Acknowledges each of `messageIds` (each distinct id once, all in one store transaction:
   * `ReliableMessageService.acknowledgeMany`): one answer per id in the order given, a refusal
   * (unknown id, never sent) answered for that id only; a repeated id answers `applied: false`. A
   * store fault throws for the whole call; every ack is idempotent, so the caller sends the batch again.
   */
  ackMany(messageIds: readonly string[], subscription?: string): Promise<BatchAckAnswer>;
  /**
   * Seed `directSendMessage`: a send of the message without a stored record (no check-back, no
   * resend, no dead letter; its acknowledgement answers NOT_FOUND). A retry sends it again.
   */
  directSend(input: DirectSendInput): Promise<{ readonly eventId: number; readonly messageId: string; readonly queue: string }>;
  /** The consumer's handler failed past its own retries: redelivered later, DEAD at the reject budget. */
  reject(messageId: string, reason: string, subscription?: string): Promise<ReliableCommandAnswer>;
  /** Resends every DEAD message of `queue` (the dead-letter replay). */
  replayDead(queue: string): Promise<BulkResendResult>;
}

export const messageView = (m: ReliableMessage): ReliableMessageView => ({ ...m, queue: m.consumerQueue, phase: reliableMessagePhase(m) });

export const subscriptionView = (d: SubscriptionDelivery): SubscriptionView => ({ ...d, phase: subscriptionPhase(d) });

/** The message with its subscriptions' deliveries, when it has any. */
export const messageWithSubscriptions = (m: ReliableMessage, deliveries: readonly SubscriptionDelivery[]): ReliableMessageView =>
  deliveries.length === 0 ? messageView(m) : { ...messageView(m), subscriptions: deliveries.map(subscriptionView) };

export interface ReliableApiDeps {
  readonly service: ReliableMessageService;
  readonly metrics: ReliableMetrics;
  /** Looked up before a prepare when topics are not created on first use. */
  readonly topics?: QueueTopicsPort | undefined;
  /** `reliable.createTopics`: false = a prepare for a queue without its topic is refused (422). */
  readonly createTopics: boolean;
  /** `reliable.topicPrefix`: a queue's topic is the prefix and the queue name (default `rmq.`). */
  readonly topicPrefix?: string;
  /** Called after a command wrote a send (wakes the relay). */
  readonly onSend?: () => void;
}

/** The API over the service in this process. */
export function directReliableApi(deps: ReliableApiDeps): ReliableMessageApi {
  const { service, metrics } = deps;
  const answer = (outcome: ReliableMessageOutcome): ReliableCommandAnswer => {
    if (outcome.eventId !== null) deps.onSend?.();
    const base = { applied: outcome.applied, message: outcome.message ? messageView(outcome.message) : null };
    return outcome.delivery ? { ...base, subscription: subscriptionView(outcome.delivery) } : base;
  };
  return {
    async prepare(input, confirm, when) {
      const draft = checkReliableMessageDraft(toDraft(input));
      await refuseUnknownQueue(deps, draft.consumerQueue);
      const outcome = confirm ? await service.saveAndSend(draft, when) : await service.prepare(draft, when);
      if (outcome.eventId !== null) deps.onSend?.();
      const message = outcome.message ?? (await service.get(draft.messageId));
      if (message === undefined) throw new Error(`message ${draft.messageId} is not stored after its prepare`);
      return { created: outcome.applied, message: messageView(message) };
    },
    confirm: async (id, when) => answer(await service.confirmAndSend(id, when)),
    cancel: async (id) => answer(await service.cancel(id)),
    get: async (id) => {
      const m = await service.get(id);
      return m ? messageWithSubscriptions(m, await service.subscriptions(id)) : undefined;
    },
    heldBehind: async (id) => (await service.heldBehind(id))?.messageId ?? null,
    ack: async (id, subscription) => answer(await service.acknowledge(id, subscription)),
    async ackMany(ids, subscription) {
      const toResult = (r: ReliableMessageBatchResult): BatchAckResult => {
        if ("outcome" in r) return { messageId: r.messageId, ok: true, applied: r.outcome.applied, phase: r.outcome.message ? reliableMessagePhase(r.outcome.message) : null };
        const { status, body } = errorAnswer(r.error);
        return { messageId: r.messageId, ok: false, status, code: body.code ?? null, message: body.message };
      };
      // Each distinct id once, all in one store transaction; a repeated id answers as the retry
      // it is: not applied again.
      const byId = new Map((await service.acknowledgeMany(ids, subscription)).map((r) => [r.messageId, toResult(r)]));
      const seen = new Set<string>();
      const results = ids.map((id) => {
        const r = byId.get(id)!;
        const repeat = seen.has(id);
        seen.add(id);
        return repeat && r.ok ? { ...r, applied: false } : r;
      });
      const failed = results.filter((r) => !r.ok).length;
      return { acknowledged: results.length - failed, failed, results };
    },
    async directSend(input) {
      const draft = checkReliableMessageDraft(toDraft(input));
      await refuseUnknownQueue(deps, draft.consumerQueue);
      const { eventId } = await service.directSend(draft);
      deps.onSend?.();
      return { eventId, messageId: draft.messageId, queue: draft.consumerQueue };
    },
    reject: async (id, reason, subscription) => {
      const outcome = await service.reject(id, reason, subscription);
      if (outcome.applied) {
        metrics.rejected();
        const dead = outcome.delivery ? outcome.delivery.dead : outcome.message && reliableMessagePhase(outcome.message) === ReliableMessagePhase.DEAD;
        if (dead) metrics.dead();
      }
      return answer(outcome);
    },
    replayDead: async (queue) => {
      const result = await service.resendAllDeadByQueue(queue);
      if (result.resent > 0) deps.onSend?.();
      return result;
    },
  };
}

/** Refuses (422 UNKNOWN_QUEUE) a queue whose topic the broker says is missing, when the runner may not create it. */
async function refuseUnknownQueue(deps: ReliableApiDeps, queue: string): Promise<void> {
  if (deps.createTopics || !deps.topics) return;
  const topic = `${deps.topicPrefix ?? RELIABLE_MESSAGE_TOPIC_PREFIX}${queue}`;
  if ((await topicExists(deps.topics, topic)) === false) {
    throw new HttpError(422, `queue ${queue}: its topic ${topic} does not exist and reliable.createTopics is false`, "UNKNOWN_QUEUE");
  }
}

/**
 * Whether `topic` exists, or null when the broker cannot be asked: the prepare is then taken (it
 * only writes PostgreSQL, and its send waits in the outbox), so a broker outage never refuses one.
 */
async function topicExists(topics: QueueTopicsPort, topic: string): Promise<boolean | null> {
  try {
    return await topics.exists(topic);
  } catch (e) {
    if (isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE") return null;
    throw e;
  }
}

/** The draft of an input: a body that is not text is stored as its JSON text. */
function toDraft(input: ReliableMessageInput | DirectSendInput): ReliableMessageDraft {
  const body = typeof input.body === "string" ? input.body : JSON.stringify(input.body);
  return {
    messageId: input.messageId,
    consumerQueue: input.queue,
    body,
    dataType: input.dataType ?? null,
    remark: input.remark ?? null,
    field1: input.field1 ?? null,
    field2: input.field2 ?? null,
    field3: input.field3 ?? null,
    headers: input.headers ?? null,
    checkDelayMs: ("checkDelayMs" in input ? input.checkDelayMs : undefined) ?? null,
    key: input.key ?? null,
  };
}
