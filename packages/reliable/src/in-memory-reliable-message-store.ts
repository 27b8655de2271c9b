import { MsgxError, newestFirstPage, type LineageQuery } from "@msgx/core";
import { EventType, type OutboxEventDraft } from "@msgx/core";
import type { Clock } from "@msgx/core";
import type { InMemoryPipelineStore } from "@msgx/core/fakes";
import type {
  HeldCounts,
  ReliableMessageFilter,
  ReliableMessagePage,
  ReliableMessagePhaseCounts,
  ReliableQueueCounts,
  ReliableMessageWrite,
  ReliableMessageStore,
  ReliableMessageWriteResult,
  SubscriptionDeliveryCounts,
  SubscriptionDeliveryPhase,
  SubscriptionDeliveryWrite,
} from "./reliable-message-store.js";
import { withHistoryEntry, type ReliableMessageHistoryEntry, type ReliableMessageHistoryPage } from "./message-history.js";
import { headOfKey, heldBehind, heldBehindDead } from "./key-order.js";
import { isFinishedStatus, reliableMessagePhase, ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";
import { subscriptionPhase, type SubscriptionDelivery } from "./subscription-delivery.js";

/** Orders strings by Unicode code point (what PostgreSQL's `COLLATE "C"` does on UTF-8). */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The in-memory `ReliableMessageStore`: a map of messages, and the outbox rows (sends and dead
 * letters) appended to the pipeline fake's `tables.events` (the rows `InMemoryOutboxStore` and the
 * relay read), with EVENT_IDs from its sequence; a send's id is stored as the message's `lastEventId`. Each call is synchronous once it starts, hence atomic. Faults: the
 * pipeline store's `faults` (operation names `rm.<member>`, so one `setDown(true)` takes the whole
 * database away) and `commitUnknownNext` (the next commit applies, then reports COMMIT_UNKNOWN).
 */
export class InMemoryReliableMessageStore implements ReliableMessageStore {
  readonly messages = new Map<string, ReliableMessage>();
  /** Subscription deliveries by message id, then subscription. */
  readonly subscriptionDeliveries = new Map<string, Map<string, SubscriptionDelivery>>();
  /** Each message's history, oldest first; it leaves with its message. */
  readonly histories = new Map<string, ReliableMessageHistoryEntry[]>();
  /** When set, the next `commit` applies its write and then throws `COMMIT_UNKNOWN` (a lost answer). */
  commitUnknownNext = false;
  readonly #clock: Clock;
  readonly #db: InMemoryPipelineStore;
  /** The confirm sequence (PostgreSQL: `reliable_message_order_seq`). */
  #orderSeq = 0;

  constructor(clock: Clock, database: InMemoryPipelineStore) {
    this.#clock = clock;
    this.#db = database;
  }

  async commit(write: ReliableMessageWrite): Promise<ReliableMessageWriteResult> {
    this.#db.faults.check("rm.commit");
    const result = this.#apply(write);
    if (result.ok && this.commitUnknownNext) {
      this.commitUnknownNext = false;
      throw new MsgxError("COMMIT_UNKNOWN", "connection lost during COMMIT (simulated; it did commit)");
    }
    return result;
  }

  async commitMany(writes: readonly ReliableMessageWrite[]): Promise<readonly ReliableMessageWriteResult[]> {
    this.#db.faults.check("rm.commitMany");
    // Every row is checked before anything is written, so a refused one writes nothing of the batch.
    for (const w of writes) for (const d of outboxDrafts(w)) checkOutboxDraft(d);
    const results = writes.map((w) => this.#apply(w));
    if (results.some((r) => r.ok) && this.commitUnknownNext) {
      this.commitUnknownNext = false;
      throw new MsgxError("COMMIT_UNKNOWN", "connection lost during COMMIT (simulated; it did commit)");
    }
    return results;
  }

  #apply(write: ReliableMessageWrite): ReliableMessageWriteResult {
    if (write.op === "send") return { ok: true, eventId: this.#append(write.send) };
    if (write.op === "insert") {
      if (this.messages.has(write.message.messageId)) return { ok: false, conflict: "exists" };
      return this.#store(write.message, write.send, null, write.history ?? null, write.deliveries ?? [], write.sequence === true);
    }
    const id = write.op === "delete" ? write.messageId : write.message.messageId;
    const stored = this.messages.get(id);
    if (stored === undefined) return { ok: false, conflict: "missing" };
    if (stored.version !== write.expectedVersion) return { ok: false, conflict: "changed" };
    if (write.op === "delete") {
      this.#remove(id);
      return { ok: true, eventId: null };
    }
    return this.#store(write.message, write.send, write.deadLetter ?? null, write.history ?? null, write.deliveries ?? [], write.sequence === true);
  }

  #remove(messageId: string): void {
    this.messages.delete(messageId);
    this.subscriptionDeliveries.delete(messageId);
    this.histories.delete(messageId);
  }

  /** Stores `message` with its rows, history entry and deliveries (and its confirm sequence number when asked); every row is checked first, so a refused one writes nothing. */
  #store(message: ReliableMessage, send: OutboxEventDraft | null, deadLetter: OutboxEventDraft | null, history: ReliableMessageHistoryEntry | null, deliveries: readonly SubscriptionDeliveryWrite[], sequence: boolean): ReliableMessageWriteResult {
    for (const d of [send, deadLetter, ...deliveries.flatMap((w) => [w.send, w.deadLetter ?? null])]) if (d) checkOutboxDraft(d);
    const sendId = send ? this.#append(send) : null;
    const deadId = deadLetter ? this.#append(deadLetter) : null;
    const orderSeq = sequence && message.key !== null ? ++this.#orderSeq : undefined;
    this.messages.set(message.messageId, { ...message, ...(sendId !== null ? { lastEventId: sendId } : {}), ...(orderSeq !== undefined ? { orderSeq } : {}) });
    if (history !== null) this.histories.set(message.messageId, withHistoryEntry(this.histories.get(message.messageId) ?? [], history));
    let firstId: number | null = null;
    for (const w of deliveries) {
      const id = w.send ? this.#append(w.send) : null;
      const dlq = w.deadLetter ? this.#append(w.deadLetter) : null;
      firstId ??= id ?? dlq;
      const bySub = this.subscriptionDeliveries.get(message.messageId) ?? new Map<string, SubscriptionDelivery>();
      bySub.set(w.delivery.subscription, id === null ? w.delivery : { ...w.delivery, lastEventId: id });
      this.subscriptionDeliveries.set(message.messageId, bySub);
    }
    return { ok: true, eventId: sendId ?? deadId ?? firstId, ...(orderSeq !== undefined ? { orderSeq } : {}) };
  }

  #append(draft: OutboxEventDraft): number {
    checkOutboxDraft(draft);
    return this.#db.insertEvent(draft, this.#clock.now());
  }

  async history(messageId: string): Promise<readonly ReliableMessageHistoryEntry[]> {
    this.#db.faults.check("rm.history");
    return [...(this.histories.get(messageId) ?? [])];
  }

  async historyPage(messageId: string, query: LineageQuery): Promise<ReliableMessageHistoryPage> {
    this.#db.faults.check("rm.history");
    const below = (this.histories.get(messageId) ?? []).filter((h) => query.beforeVersion === undefined || h.version < query.beforeVersion);
    return newestFirstPage("entries", below.reverse().slice(0, query.limit + 1), query.limit);
  }

  async get(messageId: string): Promise<ReliableMessage | undefined> {
    this.#db.faults.check("rm.get");
    return this.messages.get(messageId);
  }

  async deliveries(messageId: string): Promise<readonly SubscriptionDelivery[]> {
    this.#db.faults.check("rm.deliveries");
    return [...(this.subscriptionDeliveries.get(messageId)?.values() ?? [])].sort((a, b) => compareCodePoints(a.subscription, b.subscription));
  }

  async dueDeliveries(now: number, limit: number): Promise<readonly SubscriptionDelivery[]> {
    this.#db.faults.check("rm.dueDeliveries");
    return [...this.subscriptionDeliveries.values()]
      .flatMap((m) => [...m.values()])
      .filter((d) => d.status === ReliableMessageStatus.SENDING && !d.dead && d.nextCheckAt !== null && d.nextCheckAt <= now)
      .sort((a, b) => a.nextCheckAt! - b.nextCheckAt! || compareCodePoints(a.messageId, b.messageId) || compareCodePoints(a.subscription, b.subscription))
      .slice(0, limit);
  }

  async scanDeadDeliveries(queue: string, after: { readonly messageId: string; readonly subscription: string } | null, limit: number): Promise<readonly SubscriptionDelivery[]> {
    this.#db.faults.check("rm.scanDeadDeliveries");
    const order = (a: { messageId: string; subscription: string }, b: { messageId: string; subscription: string }) =>
      compareCodePoints(a.messageId, b.messageId) || compareCodePoints(a.subscription, b.subscription);
    return [...this.subscriptionDeliveries.values()]
      .flatMap((m) => [...m.values()])
      .filter((d) => d.dead && d.status === ReliableMessageStatus.SENDING && this.messages.get(d.messageId)?.consumerQueue === queue && (after === null || order(d, after) > 0))
      .sort(order)
      .slice(0, limit);
  }

  async due(status: ReliableMessageStatus, now: number, limit: number): Promise<readonly ReliableMessage[]> {
    this.#db.faults.check("rm.due");
    return [...this.messages.values()]
      .filter((m) => m.status === status && !m.dead && m.nextCheckAt !== null && m.nextCheckAt <= now && heldBehind(m, this.messages.values()) === undefined)
      .sort((a, b) => a.nextCheckAt! - b.nextCheckAt! || compareCodePoints(a.messageId, b.messageId))
      .slice(0, limit);
  }

  async heldBehind(messageId: string): Promise<ReliableMessage | undefined> {
    this.#db.faults.check("rm.heldBehind");
    const message = this.messages.get(messageId);
    return message === undefined ? undefined : heldBehind(message, this.messages.values());
  }

  async headOfKey(queue: string, key: string): Promise<ReliableMessage | undefined> {
    this.#db.faults.check("rm.headOfKey");
    return headOfKey(queue, key, this.messages.values());
  }

  async countHeld(): Promise<HeldCounts> {
    this.#db.faults.check("rm.countHeld");
    const all = [...this.messages.values()];
    const held = all.filter((m) => heldBehind(m, all) !== undefined);
    const behindDead = held.filter((m) => heldBehindDead(m, all)).length;
    return { behindDead, behindLive: held.length - behindDead };
  }

  async scan(filter: ReliableMessageFilter, afterMessageId: string | null, limit: number): Promise<readonly ReliableMessage[]> {
    this.#db.faults.check("rm.scan");
    return this.#matching(filter)
      .filter((m) => afterMessageId === null || compareCodePoints(m.messageId, afterMessageId) > 0)
      .sort((a, b) => compareCodePoints(a.messageId, b.messageId))
      .slice(0, limit);
  }

  async listPage(filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage> {
    this.#db.faults.check("rm.listPage");
    checkPage(pageNum, pageSize);
    const all = this.#matching(filter).sort((a, b) => a.createdAt - b.createdAt || compareCodePoints(a.messageId, b.messageId));
    return {
      items: all.slice((pageNum - 1) * pageSize, pageNum * pageSize),
      pageNum,
      pageSize,
      total: all.length,
      totalPages: Math.ceil(all.length / pageSize),
    };
  }

  async purgeFinished(before: number, limit: number): Promise<number> {
    this.#db.faults.check("rm.purgeFinished");
    checkPurgeLimit(limit);
    const victims = [...this.messages.values()]
      .filter((m) => isFinishedStatus(m.status) && m.updatedAt < before)
      .sort((a, b) => a.updatedAt - b.updatedAt || compareCodePoints(a.messageId, b.messageId))
      .slice(0, limit);
    for (const m of victims) this.#remove(m.messageId);
    return victims.length;
  }

  async countByPhase(): Promise<ReliableMessagePhaseCounts> {
    this.#db.faults.check("rm.countByPhase");
    const counts = emptyPhaseCounts();
    for (const m of this.messages.values()) counts[reliableMessagePhase(m) as keyof ReliableMessagePhaseCounts] += 1;
    return counts;
  }

  async countByQueue(): Promise<readonly ReliableQueueCounts[]> {
    this.#db.faults.check("rm.countByQueue");
    const byQueue = new Map<string, ReturnType<typeof emptyPhaseCounts>>();
    for (const m of this.messages.values()) {
      const counts = byQueue.get(m.consumerQueue) ?? emptyPhaseCounts();
      counts[reliableMessagePhase(m) as keyof ReliableMessagePhaseCounts] += 1;
      byQueue.set(m.consumerQueue, counts);
    }
    return [...byQueue].sort(([a], [b]) => compareCodePoints(a, b)).map(([queue, phases]) => ({ queue, phases }));
  }

  async countDeliveries(): Promise<readonly SubscriptionDeliveryCounts[]> {
    this.#db.faults.check("rm.countDeliveries");
    const byKey = new Map<string, { queue: string; subscription: string; phases: Record<SubscriptionDeliveryPhase, number> }>();
    for (const [messageId, bySub] of this.subscriptionDeliveries) {
      const queue = this.messages.get(messageId)?.consumerQueue;
      if (queue === undefined) continue;
      for (const d of bySub.values()) {
        const key = JSON.stringify([queue, d.subscription]);
        const counts = byKey.get(key) ?? { queue, subscription: d.subscription, phases: { SENDING: 0, DEAD: 0, ACKNOWLEDGED: 0 } };
        counts.phases[subscriptionPhase(d) as SubscriptionDeliveryPhase] += 1;
        byKey.set(key, counts);
      }
    }
    return [...byKey.values()].sort((a, b) => compareCodePoints(a.queue, b.queue) || compareCodePoints(a.subscription, b.subscription));
  }

  #matching(f: ReliableMessageFilter): ReliableMessage[] {
    return [...this.messages.values()].filter(
      (m) =>
        (f.consumerQueue === undefined || m.consumerQueue === f.consumerQueue) &&
        (f.status === undefined || m.status === f.status) &&
        (f.dead === undefined || m.dead === f.dead) &&
        (f.createdBefore === undefined || m.createdAt < f.createdBefore) &&
        (f.createdFrom === undefined || m.createdAt >= f.createdFrom) &&
        (f.messageIds === undefined || f.messageIds.includes(m.messageId)),
    );
  }
}

/** The page arguments every store refuses alike: a 1-based page and a positive size. */
export function checkPage(pageNum: number, pageSize: number): void {
  if (!Number.isSafeInteger(pageNum) || pageNum < 1) throw new RangeError(`pageNum must be a positive integer: ${pageNum}`);
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer: ${pageSize}`);
}

/** The purge limit every store refuses alike: a positive integer. */
export function checkPurgeLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer: ${limit}`);
}

/** Every phase but ABSENT at zero (what `countByPhase` answers for an empty store). */
export const emptyPhaseCounts = (): { -readonly [K in keyof ReliableMessagePhaseCounts]: number } => ({
  WAITING_CONFIRM: 0,
  REVIEW: 0,
  SENDING: 0,
  DEAD: 0,
  ACKNOWLEDGED: 0,
  CANCELLED: 0,
});

/** The outbox rows a write asks for. */
const outboxDrafts = (w: ReliableMessageWrite): OutboxEventDraft[] =>
  w.op === "send"
    ? [w.send]
    : w.op === "delete"
      ? []
      : [w.send, w.op === "update" ? w.deadLetter : null, ...(w.deliveries ?? []).flatMap((d) => [d.send, d.deadLetter])].filter((d): d is OutboxEventDraft => d !== null && d !== undefined);

/** The checks `msg_event`'s constraints make, so the fake refuses what PostgreSQL refuses. */
function checkOutboxDraft(d: OutboxEventDraft): void {
  if (d.eventType !== EventType.UPSERT && d.eventType !== EventType.TOMBSTONE) {
    throw new MsgxError("INFRA", `check violation: msg_event.event_type ${JSON.stringify(d.eventType)}`);
  }
  if (!Number.isSafeInteger(d.stateVersion) || !Number.isSafeInteger(d.sourceMsgId)) {
    throw new MsgxError("INFRA", "invalid input: msg_event.state_version and source_msg_id must be integers");
  }
}
