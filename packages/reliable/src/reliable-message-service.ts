import type { Clock, LineageQuery } from "@msgx/core";
import { isMsgxError, silentLogger, type Logger } from "@msgx/core";
import { checkReliableMessageDraft, checkMessageId } from "./message-draft.js";
import { checkKeyForQueue, isKeyOrdered } from "./key-order.js";
import { sendDraft } from "./message-envelope.js";
import { evolveReliableMessage, type ReliableMessageCommand } from "./message-machine.js";
import type { ReliableMessageCause, ReliableMessageHistoryEntry, ReliableMessageHistoryPage } from "./message-history.js";
import { isReliableMessageError } from "./reliable-message-error.js";
import { ReliableMessageError } from "./reliable-message-error.js";
import { reliableMessageOptions, type ReliableMessageOptions, type ReliableMessageOptionsInput } from "./reliable-message-options.js";
import type { HeldCounts, ReliableMessageFilter, ReliableMessagePage, ReliableMessagePhaseCounts, ReliableMessageStore, ReliableQueueCounts, SubscriptionDeliveryCounts } from "./reliable-message-store.js";
import { ReliableMessageStatus, type ReliableMessage, type ReliableMessageDraft } from "./reliable-message.js";
import { confirmDeliveryTime, deliveryTime, type ReliableDelivery } from "./reliable-delivery.js";
import { runReliableMessageCommand, runReliableMessageCommandBatch, type ReliableMessageBatchResult, type ReliableMessageCommandDeps, type ReliableMessageOutcome } from "./run-command.js";
import { runSubscriptionCommand, runSubscriptionCommandBatch } from "./run-subscription-command.js";
import { subscriptionsOf } from "./reliable-message-options.js";
import { checkSubscriptionArgument, subscriptionNamesFor, type SubscriptionDelivery } from "./subscription-delivery.js";
import type { SubscriptionCommand } from "./subscription-machine.js";

export interface ReliableMessageServiceDeps {
  readonly store: ReliableMessageStore;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly options?: ReliableMessageOptionsInput;
  /**
   * The cause of a change whose call names none, for the message's history: the runner answers
   * the HTTP call being served. Undefined (or answering undefined): `library`.
   */
  readonly causeOf?: () => ReliableMessageCause | undefined;
}

/** What a bulk resend did. */
export interface BulkResendResult {
  readonly resent: number;
  /** Messages that changed under the scan (acknowledged, resent by someone else) and were left alone. */
  readonly skipped: number;
  readonly pages: number;
}

/** The longest reject reason kept; a longer one is cut (a reason is for operators, losing the reject would be worse). */
export const MAX_REJECT_REASON = 1_000;

/** The seed's page size rule, without its gaps: 1 to 5,000, default 1,000. */
export const clampPageSize = (n: number | undefined): number =>
  n === undefined || !Number.isFinite(n) || n <= 0 ? 1_000 : Math.min(5_000, Math.max(1, Math.floor(n)));

/**
 * The reliable-message service (SPEC §4; seed `RpTransactionMessageService`). Every method that
 * sends writes the message change and its outbox row in one store transaction; the outbox relay
 * (`MsgDispatcher`, one per queue target) then delivers it. Nothing here talks to the broker, so
 * a status change and its send can never split as they did in the seed (update, then send).
 *
 * Every command is idempotent and safe to retry after an unknown outcome (`COMMIT_UNKNOWN`, a
 * timeout): a retried save of the same content, a second confirm, a cancel or acknowledgement of
 * a message that is gone are no-ops. Refusals throw `ReliableMessageError`; store faults throw
 * `MsgxError`.
 */
export class ReliableMessageService {
  readonly options: ReliableMessageOptions;
  readonly #store: ReliableMessageStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #causeOf: () => ReliableMessageCause | undefined;

  constructor(deps: ReliableMessageServiceDeps) {
    this.#causeOf = deps.causeOf ?? (() => undefined);
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#logger = deps.logger ?? silentLogger;
    this.options = reliableMessageOptions(deps.options);
  }

  /**
   * Prepare (seed `saveMessageWaitingConfirm`): stores the message WAITING_CONFIRM, unsent. Call
   * before the business transaction. With `when`, the delivery time is stored with it (a `delayMs`
   * counts from this call) and a confirm that gives no time of its own first sends it then (see
   * {@link ReliableDelivery}). Saving the same content again is a no-op (the first prepare's time
   * stands); another message with the same id is refused (`ALREADY_EXISTS`).
   */
  async saveWaitingConfirm(draft: ReliableMessageDraft, when?: ReliableDelivery): Promise<ReliableMessage> {
    const outcome = await this.prepare(draft, when);
    return outcome.message!;
  }

  /** {@link saveWaitingConfirm} with its outcome (`applied` false for a repeated prepare). */
  prepare(draft: ReliableMessageDraft, when?: ReliableDelivery): Promise<ReliableMessageOutcome> {
    const d = checkReliableMessageDraft(draft);
    checkKeyForQueue(this.options, d);
    return this.execute(d.messageId, { type: "save-waiting", draft: d, deliverAt: deliveryTime(when, this.#clock.now()) });
  }

  /**
   * Confirm (seed `confirmAndSendMessage`): after the business transaction committed, moves the
   * message (WAITING_CONFIRM or REVIEW) to SENDING and writes its first send — or, with `when`
   * ahead of now, writes it at that time (a delayed message; see {@link ReliableDelivery}). Without
   * `when`, the time asked for at the prepare holds; with it, `when` wins. A confirmed message
   * (sending, dead or acknowledged) is a no-op; a cancelled one is refused (`CONFLICT`), an unknown
   * one (`NOT_FOUND`).
   */
  async confirmAndSend(messageId: string, when?: ReliableDelivery): Promise<ReliableMessageOutcome> {
    return this.#advancingKey(await this.execute(checkMessageId(messageId), { type: "confirm", by: "producer", deliverAt: confirmDeliveryTime(when, this.#clock.now()) }));
  }

  /**
   * Cancel: the business transaction rolled back, so the WAITING_CONFIRM (or REVIEW) message ends
   * CANCELLED, unsent, kept until the retention purge. A cancelled message is a no-op; a confirmed
   * one is refused (`ILLEGAL_STATE`), an unknown one `NOT_FOUND`.
   */
  cancel(messageId: string): Promise<ReliableMessageOutcome> {
    return this.execute(checkMessageId(messageId), { type: "cancel", by: "producer" });
  }

  /** Seed `saveAndSendMessage`: stores the message SENDING and writes its first send at once (or at `when`). */
  async saveAndSend(draft: ReliableMessageDraft, when?: ReliableDelivery): Promise<ReliableMessageOutcome> {
    const d = checkReliableMessageDraft(draft);
    checkKeyForQueue(this.options, d);
    return this.#advancingKey(await this.execute(d.messageId, { type: "save-and-send", draft: d, deliverAt: deliveryTime(when, this.#clock.now()) }));
  }

  /**
   * Seed `directSendMessage`: writes a send of the message without storing it: no recovery, no
   * dead letter. A retry sends it again (the consumer dedupes on the message id).
   */
  async directSend(draft: ReliableMessageDraft): Promise<{ readonly eventId: number }> {
    const d = checkReliableMessageDraft(draft);
    const transient = evolveReliableMessage(undefined, { type: "saved-and-sent", draft: d }, { now: this.#clock.now(), options: this.options })!;
    // A queue with subscriptions gets one send per subscription topic, in one transaction.
    const subs = subscriptionsOf(this.options, d.consumerQueue);
    const sends = subs.length === 0 ? [sendDraft(transient)] : subs.map((sub) => sendDraft(transient, sub));
    const [result] = sends.length === 1 ? [await this.#store.commit({ op: "send", send: sends[0]! })] : await this.#store.commitMany(sends.map((send) => ({ op: "send", send })));
    if (result === undefined || !result.ok || result.eventId === null) throw new Error(`store answered a send-only write with ${JSON.stringify(result)}`);
    return { eventId: result.eventId };
  }

  /** Seed `reSendMessage`: the same as {@link resendByMessageId} for `message.messageId`. */
  resend(message: Pick<ReliableMessage, "messageId">): Promise<ReliableMessageOutcome> {
    return this.resendByMessageId(message.messageId);
  }

  /**
   * Seed `reSendMessageByMessageId`: sends a confirmed message once more (`sendCount` + 1). A dead
   * message comes back to SENDING (the replay of a dead letter: its reject count starts again),
   * with `maxSends` used for one acknowledgement wait. An unconfirmed or finished message is
   * refused (`ILLEGAL_STATE`): the seed would have delivered a business action that may never commit.
   */
  resendByMessageId(messageId: string, subscription?: string): Promise<ReliableMessageOutcome> {
    return this.#route(messageId, subscription, { type: "resend" });
  }

  /**
   * Seed `setMessageToAreadlyDead`: no job resends it any more; its dead-letter row is written.
   * Refused for an unconfirmed or finished message.
   */
  markDead(messageId: string, reason?: string, subscription?: string): Promise<ReliableMessageOutcome> {
    return this.#route(messageId, subscription, { type: "mark-dead", ...(reason !== undefined ? { reason } : {}) });
  }

  /** The subscription deliveries of a message (none for a queue without subscriptions or a message not sent yet). */
  subscriptions(messageId: string): Promise<readonly SubscriptionDelivery[]> {
    return this.#store.deliveries(checkMessageId(messageId));
  }

  /** The message's history (its lineage), oldest first; empty for an unknown message. */
  history(messageId: string): Promise<readonly ReliableMessageHistoryEntry[]> {
    return this.#store.history(checkMessageId(messageId));
  }

  /** One page of the message's history, newest first (`ReliableMessageStore.historyPage`). */
  historyPage(messageId: string, query: LineageQuery): Promise<ReliableMessageHistoryPage> {
    return this.#store.historyPage(checkMessageId(messageId), query);
  }

  /** Seed `getMessageByMessageId`. */
  get(messageId: string): Promise<ReliableMessage | undefined> {
    return this.#store.get(checkMessageId(messageId));
  }

  /**
   * What the message waits for on a queue ordered by key (`key-order.ts`): the oldest unfinished
   * message of its key confirmed before it; undefined when it is not held.
   */
  heldBehind(messageId: string): Promise<ReliableMessage | undefined> {
    return this.#store.heldBehind(checkMessageId(messageId));
  }

  /** Messages held by their key, behind a DEAD one or behind live ones only (the held gauge). */
  countHeld(): Promise<HeldCounts> {
    return this.#store.countHeld();
  }

  /** Seed `deleteMessageByMessageId`, for operators: deletes the message whatever its phase. */
  async deleteByMessageId(messageId: string): Promise<ReliableMessageOutcome> {
    const before = await this.#store.get(checkMessageId(messageId));
    const outcome = await this.execute(messageId, { type: "delete" }, before);
    if (outcome.applied) await this.#sendHeadOfKey(before);
    return outcome;
  }

  /**
   * The consumer's acknowledgement: a sent message (dead or not) ends ACKNOWLEDGED, never resent,
   * kept until the retention purge. An acknowledged message is a no-op (a redelivery acknowledged
   * twice); one that was never sent (waiting, review, cancelled) is refused (`ILLEGAL_STATE`), an
   * unknown one `NOT_FOUND`.
   */
  async acknowledge(messageId: string, subscription?: string): Promise<ReliableMessageOutcome> {
    return this.#advancingKey(await this.#route(messageId, subscription, { type: "acknowledge" }));
  }

  /**
   * A command of a consumer or operator that may name a subscription: to that subscription's
   * delivery when the message has subscriptions (then one must be named: `INVALID_MESSAGE`
   * otherwise, or for a name the message does not have), else to the message.
   */
  async #route(messageId: string, subscription: string | undefined, command: SubscriptionCommand): Promise<ReliableMessageOutcome> {
    const id = checkMessageId(messageId);
    const deps = this.#deps();
    const message = await this.#store.get(id);
    if (message === undefined) return runReliableMessageCommand(deps, id, command, null);
    const deliveries = await this.#store.deliveries(id);
    checkSubscriptionArgument(id, message.consumerQueue, subscriptionNamesFor(message, deliveries, subscriptionsOf(this.options, message.consumerQueue)), subscription);
    if (deliveries.length > 0 && subscription !== undefined) return runSubscriptionCommand(deps, id, subscription, command, { message, deliveries });
    return runReliableMessageCommand(deps, id, command, message);
  }

  /**
   * {@link acknowledge} for many messages in one store transaction (a consumer's batch; with
   * `subscription`, of each message's delivery to it): one result per distinct id, in the order
   * given, each the outcome or the refusal `acknowledge` would have given that id alone
   * (`NOT_FOUND`, `ILLEGAL_STATE`, `INVALID_MESSAGE`; an acknowledged one a no-op).
   */
  async acknowledgeMany(messageIds: readonly string[], subscription?: string): Promise<readonly ReliableMessageBatchResult[]> {
    const invalid = new Map<string, ReliableMessageBatchResult>();
    for (const id of messageIds) {
      try {
        checkMessageId(id);
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
        invalid.set(id, { messageId: id, error: e });
      }
    }
    const valid = messageIds.filter((id) => !invalid.has(id));
    // Named: every id's delivery to that subscription, one transaction. Unnamed: the messages of
    // queues without subscriptions in one transaction; one of a queue with subscriptions answers
    // as `acknowledge` would (INVALID_MESSAGE naming them, or its own single acknowledgement).
    const routed = subscription !== undefined ? new Set<string>() : await this.#withSubscriptions(valid);
    const batch = valid.filter((id) => !routed.has(id));
    const run = subscription !== undefined ? runSubscriptionCommandBatch(this.#deps(), batch, subscription, { type: "acknowledge" }) : runReliableMessageCommandBatch(this.#deps(), batch, { type: "acknowledge" });
    const done = new Map((await run).map((r) => [r.messageId, r]));
    for (const id of routed) {
      try {
        done.set(id, { messageId: id, outcome: await this.acknowledge(id) });
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
        done.set(id, { messageId: id, error: e });
      }
    }
    for (const r of done.values()) if ("outcome" in r) await this.#advancingKey(r.outcome);
    return [...new Set(messageIds)].map((id) => invalid.get(id) ?? done.get(id)!);
  }

  /** Those of `ids` whose queue has subscriptions configured (none read when no queue has any). */
  async #withSubscriptions(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0 || Object.keys(this.options.subscriptions ?? {}).length === 0) return new Set();
    const stored = await this.#store.scan({ messageIds: ids }, null, ids.length);
    return new Set(stored.filter((m) => subscriptionsOf(this.options, m.consumerQueue).length > 0).map((m) => m.messageId));
  }

  /**
   * The consumer's reject: its handler failed past its own retries. A SENDING message is
   * redelivered after `rejectWaitsMs[rejectCount - 1]` without spending a send of `maxSends`; the
   * `maxRejects`-th reject makes it DEAD and writes the dead-letter row. A second reject before the
   * redelivery, or of a dead or acknowledged message, is a no-op; an unsent one is refused
   * (`ILLEGAL_STATE`), an unknown one `NOT_FOUND`. `reason` is kept as `lastError` (cut to 1,000 characters).
   */
  async reject(messageId: string, reason: string, subscription?: string): Promise<ReliableMessageOutcome> {
    const id = checkMessageId(messageId);
    if (typeof reason !== "string") throw new ReliableMessageError("INVALID_MESSAGE", "invalid reject: reason is not a string", id);
    const cut = reason.length > MAX_REJECT_REASON ? reason.slice(0, MAX_REJECT_REASON) : reason;
    return this.#route(id, subscription, { type: "reject", reason: cut.length === 0 ? "rejected by the consumer" : cut });
  }

  /**
   * The retention purge: deletes up to `limit` acknowledged or cancelled messages last changed
   * before `before` (oldest first) and returns how many. Call in batches until it returns less
   * than `limit`. A purged id may be prepared again.
   */
  async purgeFinished(before: number, limit: number): Promise<number> {
    const purged = await this.#store.purgeFinished(before, limit);
    if (purged > 0) this.#logger.info("reliable messages: finished messages purged", { purged, before });
    return purged;
  }

  /** How many messages are in each phase (the metrics gauge). */
  countByPhase(): Promise<ReliableMessagePhaseCounts> {
    return this.#store.countByPhase();
  }

  /** The subscription deliveries per queue, subscription and phase (`ReliableMessageStore.countDeliveries`). */
  countDeliveries(): Promise<readonly SubscriptionDeliveryCounts[]> {
    return this.#store.countDeliveries();
  }

  /** The phase counts of every queue holding a message (the operators' queue list). */
  countByQueue(): Promise<readonly ReliableQueueCounts[]> {
    return this.#store.countByQueue();
  }

  /**
   * Seed `reSendAllDeadMessageByQueueName`: resends every dead message of `queueName`, scanning
   * in pages of `pageSize` (1–5,000, default 1,000) by message id, each resend its own
   * transaction, then every DEAD subscription delivery of the queue's messages the same way (to
   * its subscription only). Unlike the seed it clears the dead flag (the seed resent and left them dead).
   */
  async resendAllDeadByQueue(queueName: string, pageSize?: number): Promise<BulkResendResult> {
    const size = clampPageSize(pageSize);
    const filter: ReliableMessageFilter = { consumerQueue: queueName, status: ReliableMessageStatus.SENDING, dead: true };
    const messages = await resendPages<ReliableMessage>(
      (last) => this.#store.scan(filter, last?.messageId ?? null, size),
      size,
      async (m) => (await this.execute(m.messageId, { type: "resend", onlyDead: true }, m)).applied,
    );
    const deliveries = await resendPages<SubscriptionDelivery>(
      (last) => this.#store.scanDeadDeliveries(queueName, last, size),
      size,
      async (d) => (await this.executeSubscription(d.messageId, d.subscription, { type: "resend", onlyDead: true })).applied,
    );
    const result = { resent: messages.resent + deliveries.resent, skipped: messages.skipped + deliveries.skipped, pages: messages.pages + deliveries.pages };
    this.#logger.info("reliable messages: dead letters resent", { queue: queueName, ...result });
    return result;
  }

  /** Seed `listPage`: page `pageNum` (1-based) of the messages matching `filter`, oldest first. */
  listPage(filter: ReliableMessageFilter = {}, pageNum = 1, pageSize = 20): Promise<ReliableMessagePage> {
    return this.#store.listPage(filter, pageNum, pageSize);
  }

  /**
   * On a queue ordered by key, a change that may let the key move on (a confirm, an
   * acknowledgement) sends the key's head at once when it is due, rather than at the recovery
   * job's next pass; the job stays the safety net, so a failure here is only logged.
   */
  async #advancingKey(outcome: ReliableMessageOutcome): Promise<ReliableMessageOutcome> {
    if (outcome.applied) await this.#sendHeadOfKey(outcome.message);
    return outcome;
  }

  /** Sends the head of `message`'s key when it was never sent and is due (the head is held by nothing, `key-order.ts`). */
  async #sendHeadOfKey(message: ReliableMessage | undefined): Promise<void> {
    if (message === undefined || message.key === null || !isKeyOrdered(this.options, message.consumerQueue, message.key)) return;
    try {
      const head = await this.#store.headOfKey(message.consumerQueue, message.key);
      if (head !== undefined && head.status === ReliableMessageStatus.SENDING && !head.dead && head.sendCount === 0) {
        await this.execute(head.messageId, { type: "recover" }, head);
      }
    } catch (e) {
      if (!isReliableMessageError(e) && !isMsgxError(e)) throw e;
      this.#logger.warn("reliable messages: the next message of a key is left to the recovery job", { queue: message.consumerQueue, error: String(e) });
    }
  }

  /**
   * Runs any command of the machine against one message (the jobs use it). `current` is the state
   * the caller read, if any; `cause` goes to the history (default: `causeOf`, else `library`). See
   * `runReliableMessageCommand`.
   */
  execute(messageId: string, command: ReliableMessageCommand, current?: ReliableMessage, cause?: ReliableMessageCause): Promise<ReliableMessageOutcome> {
    return runReliableMessageCommand(this.#deps(cause), messageId, command, current);
  }

  #deps(cause?: ReliableMessageCause): ReliableMessageCommandDeps {
    const c = cause ?? this.#causeOf();
    return { store: this.#store, clock: this.#clock, options: this.options, ...(c !== undefined ? { cause: c } : {}) };
  }

  /** Runs a command of the delivery machine against one subscription's delivery of a message (the recovery job uses it). */
  executeSubscription(messageId: string, subscription: string, command: SubscriptionCommand, cause?: ReliableMessageCause): Promise<ReliableMessageOutcome> {
    return runSubscriptionCommand(this.#deps(cause), messageId, subscription, command);
  }
}

/**
 * Walks keyset pages of `size` (`scan` given the last item of the previous page) and resends each
 * item in its own transaction; a refusal or a no-op (changed under the scan) counts as skipped.
 */
async function resendPages<T>(scan: (last: T | null) => Promise<readonly T[]>, size: number, resend: (item: T) => Promise<boolean>): Promise<BulkResendResult> {
  let last: T | null = null;
  let resent = 0;
  let skipped = 0;
  let pages = 0;
  for (;;) {
    const page = await scan(last);
    if (page.length === 0) break;
    pages += 1;
    for (const item of page) {
      try {
        if (await resend(item)) resent += 1;
        else skipped += 1;
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
        skipped += 1;
      }
    }
    last = page[page.length - 1]!;
    if (page.length < size) break;
  }
  return { resent, skipped, pages };
}
