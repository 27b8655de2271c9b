import { reliableMessagePhase, subscriptionPhase, type SubscriptionDelivery, type SubscriptionDeliveryCounts, type SubscriptionDeliveryPhase, type SubscriptionDeliveryWrite, type HeldCounts, type ReliableMessage, type ReliableMessageHistoryEntry, type ReliableMessageHistoryPage, type ReliableMessageFilter, type ReliableMessagePage, type ReliableMessagePhaseCounts, type ReliableQueueCounts, type ReliableMessageStatus, type ReliableMessageStore, type ReliableMessageWrite, type ReliableMessageWriteResult } from "@msgx/reliable";
import type { LineageQuery, OutboxEventDraft } from "@msgx/core";
import type { Kysely } from "kysely";
import { mapPgError, pgCall } from "../pg-error-map.js";
import { PgStoreSettings, type PgStoreOptions } from "../pg-store-settings.js";
import { pgTransaction, retryOnConflict } from "../pg-transaction.js";
import type { Db } from "../queries/db.js";
import { insertEvents } from "../queries/msg-event.js";
import {
  assignOrderSeq,
  countHeldMessages,
  countMessagesByQueue,
  headOfKeyMessage,
  heldBehindMessage,
  countMessagesByState,
  deleteMessage,
  dueMessages,
  getMessage,
  insertMessage,
  listMessagesPage,
  purgeFinishedMessages,
  scanMessages,
  setLastEventId,
  storedMessageIds,
  updateMessage,
  updateMessagesToNextVersion,
} from "./reliable-message-queries.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { countDeliveriesBySubscription, dueDeliveries, messageDeliveries, scanDeadDeliveries, upsertDelivery } from "./subscription-delivery-queries.js";
import { insertHistory, messageHistory, messageHistoryPage } from "./reliable-message-history-queries.js";

/** `clock` stamps the outbox rows' `created_at`. */
export type PgReliableMessageStoreOptions = PgStoreOptions;

/**
 * `ReliableMessageStore` on PostgreSQL through kysely, over `reliable_message` (migration
 * `reliableMessageMigration`) and the pipeline's `msg_event` outbox, in the same database and
 * schema: a send's outbox row commits in the same transaction as the message change, and the
 * relay (`PgOutboxStore` + `MsgDispatcher`) delivers it. Tables are unqualified: put the schema on
 * the connections' search path (`pgPoolConfig` does).
 *
 * A `commit` is BEGIN, one compare-and-set statement on the message (`WHERE version = …`), the
 * send's outbox INSERT and the UPDATE of `last_event_id` to its EVENT_ID (or the dead-letter
 * INSERT), COMMIT; a lost compare-and-set rolls back and reports the conflict.
 */
export class PgReliableMessageStore implements ReliableMessageStore {
  readonly #db: Db;
  readonly #settings: PgStoreSettings;

  constructor(db: Kysely<MsgxDatabase>, options: PgReliableMessageStoreOptions = {}) {
    this.#db = db;
    this.#settings = new PgStoreSettings(options);
  }

  commit(write: ReliableMessageWrite): Promise<ReliableMessageWriteResult> {
    return retryOnConflict(this.#settings.conflictAttempts, () =>
      pgTransaction(
        this.#db,
        "reliable message",
        async (trx) => {
          try {
            return await this.#apply(trx, write);
          } catch (e) {
            throw mapPgError(e, `reliable message ${write.op}`);
          }
        },
        { commitIf: (result) => result.ok },
      ),
    );
  }

  /**
   * One transaction for the batch: each write's statements in turn (a lost compare-and-set wrote
   * nothing, so the others still commit) — or, for a batch of quiet updates (no outbox row, each
   * to the next version, distinct messages: a batch acknowledgement), one UPDATE for them all.
   */
  async commitMany(writes: readonly ReliableMessageWrite[]): Promise<readonly ReliableMessageWriteResult[]> {
    if (writes.length === 0) return [];
    const quiet = quietUpdates(writes);
    return retryOnConflict(this.#settings.conflictAttempts, () =>
      pgTransaction(this.#db, "reliable message batch", async (trx) => {
        if (quiet !== null) {
          try {
            const replaced = await updateMessagesToNextVersion(trx, quiet);
            await insertHistory(trx, writes.flatMap((w) => (w.op === "update" && w.history && replaced.has(w.message.messageId) ? [w.history] : [])));
            const lost = quiet.filter((m) => !replaced.has(m.messageId)).map((m) => m.messageId);
            const stored = lost.length === 0 ? new Set<string>() : await storedMessageIds(trx, lost);
            return quiet.map((m): ReliableMessageWriteResult =>
              replaced.has(m.messageId) ? { ok: true, eventId: null } : { ok: false, conflict: stored.has(m.messageId) ? "changed" : "missing" },
            );
          } catch (e) {
            throw mapPgError(e, "reliable message update (batch)");
          }
        }
        const results: ReliableMessageWriteResult[] = [];
        for (const write of writes) {
          try {
            results.push(await this.#apply(trx, write));
          } catch (e) {
            throw mapPgError(e, `reliable message ${write.op} (batch)`);
          }
        }
        return results;
      }),
    );
  }

  async #apply(trx: Db, write: ReliableMessageWrite): Promise<ReliableMessageWriteResult> {
    const now = this.#settings.clock.now();
    switch (write.op) {
      case "send":
        return { ok: true, eventId: await insertEvent(trx, write.send, now) };
      case "insert":
        if (!(await insertMessage(trx, write.message))) return { ok: false, conflict: "exists" };
        return { ok: true, eventId: await this.#rows(trx, write.message.messageId, write.send, null, write.history ?? null, now, write.deliveries ?? []), ...(await this.#sequence(trx, write)) };
      case "update":
        if (!(await updateMessage(trx, write.message, write.expectedVersion))) return this.#conflict(trx, write.message.messageId);
        return { ok: true, eventId: await this.#rows(trx, write.message.messageId, write.send, write.deadLetter ?? null, write.history ?? null, now, write.deliveries ?? []), ...(await this.#sequence(trx, write)) };
      case "delete":
        if (!(await deleteMessage(trx, write.messageId, write.expectedVersion))) return this.#conflict(trx, write.messageId);
        return { ok: true, eventId: null };
    }
  }

  /**
   * The outbox rows, the history entry and the subscription deliveries of a message write (after
   * its compare-and-set, so EVENT_IDs follow commit order); the send's id, else the dead letter's,
   * else the first delivery's.
   */
  async #rows(trx: Db, messageId: string, send: OutboxEventDraft | null, deadLetter: OutboxEventDraft | null, history: ReliableMessageHistoryEntry | null, now: number, deliveries: readonly SubscriptionDeliveryWrite[]): Promise<number | null> {
    if (history !== null) await insertHistory(trx, [history]);
    const sendId = send ? await insertEvent(trx, send, now) : null;
    if (sendId !== null) await setLastEventId(trx, messageId, sendId);
    const deadId = deadLetter ? await insertEvent(trx, deadLetter, now) : null;
    let firstId: number | null = null;
    for (const w of deliveries) {
      const id = w.send ? await insertEvent(trx, w.send, now) : null;
      const dlq = w.deadLetter ? await insertEvent(trx, w.deadLetter, now) : null;
      firstId ??= id ?? dlq;
      await upsertDelivery(trx, w.delivery, id);
    }
    return sendId ?? deadId ?? firstId;
  }

  deliveries(messageId: string): Promise<readonly SubscriptionDelivery[]> {
    return pgCall("reliable message deliveries", () => messageDeliveries(this.#db, messageId));
  }

  dueDeliveries(now: number, limit: number): Promise<readonly SubscriptionDelivery[]> {
    return pgCall("reliable message due deliveries", () => dueDeliveries(this.#db, now, limit));
  }

  scanDeadDeliveries(queue: string, after: { readonly messageId: string; readonly subscription: string } | null, limit: number): Promise<readonly SubscriptionDelivery[]> {
    return pgCall("reliable message dead deliveries", () => scanDeadDeliveries(this.#db, queue, after, limit));
  }

  /** The confirm sequence number of a write that asks for one (`sequence`), as the result's `orderSeq`. */
  async #sequence(trx: Db, write: ReliableMessageWrite & { op: "insert" | "update" }): Promise<{ orderSeq?: number }> {
    const m = write.message;
    if (write.sequence !== true || m.key === null) return {};
    return { orderSeq: await assignOrderSeq(trx, m.messageId, m.consumerQueue, m.key) };
  }

  async #conflict(trx: Db, messageId: string): Promise<ReliableMessageWriteResult> {
    return { ok: false, conflict: (await getMessage(trx, messageId)) === undefined ? "missing" : "changed" };
  }

  history(messageId: string): Promise<readonly ReliableMessageHistoryEntry[]> {
    return pgCall("reliable message history", () => messageHistory(this.#db, messageId));
  }

  historyPage(messageId: string, query: LineageQuery): Promise<ReliableMessageHistoryPage> {
    return pgCall("reliable message history", () => messageHistoryPage(this.#db, messageId, query));
  }

  get(messageId: string): Promise<ReliableMessage | undefined> {
    return pgCall("reliable message get", () => getMessage(this.#db, messageId));
  }

  due(status: ReliableMessageStatus, now: number, limit: number): Promise<readonly ReliableMessage[]> {
    return pgCall("reliable message due", () => dueMessages(this.#db, status, now, limit));
  }

  heldBehind(messageId: string): Promise<ReliableMessage | undefined> {
    return pgCall("reliable message heldBehind", () => heldBehindMessage(this.#db, messageId));
  }

  headOfKey(queue: string, key: string): Promise<ReliableMessage | undefined> {
    return pgCall("reliable message headOfKey", () => headOfKeyMessage(this.#db, queue, key));
  }

  countHeld(): Promise<HeldCounts> {
    return pgCall("reliable message countHeld", () => countHeldMessages(this.#db));
  }

  scan(filter: ReliableMessageFilter, afterMessageId: string | null, limit: number): Promise<readonly ReliableMessage[]> {
    return pgCall("reliable message scan", () => scanMessages(this.#db, filter, afterMessageId, limit));
  }

  async listPage(filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage> {
    if (!Number.isSafeInteger(pageNum) || pageNum < 1) throw new RangeError(`pageNum must be a positive integer: ${pageNum}`);
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer: ${pageSize}`);
    return pgCall("reliable message listPage", () => listMessagesPage(this.#db, filter, pageNum, pageSize));
  }

  async purgeFinished(before: number, limit: number): Promise<number> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer: ${limit}`);
    return pgCall("reliable message purge", () => purgeFinishedMessages(this.#db, before, limit));
  }

  async countByPhase(): Promise<ReliableMessagePhaseCounts> {
    const rows = await pgCall("reliable message count", () => countMessagesByState(this.#db));
    const counts = { WAITING_CONFIRM: 0, REVIEW: 0, SENDING: 0, DEAD: 0, ACKNOWLEDGED: 0, CANCELLED: 0 };
    for (const r of rows) {
      const phase = reliableMessagePhase({ status: r.status as ReliableMessageStatus, dead: r.dead } as ReliableMessage);
      if (phase !== "ABSENT") counts[phase] += r.n;
    }
    return counts;
  }

  async countByQueue(): Promise<readonly ReliableQueueCounts[]> {
    const rows = await pgCall("reliable message count by queue", () => countMessagesByQueue(this.#db));
    const byQueue = new Map<string, Record<keyof ReliableMessagePhaseCounts, number>>();
    for (const r of rows) {
      const counts = byQueue.get(r.queue) ?? { WAITING_CONFIRM: 0, REVIEW: 0, SENDING: 0, DEAD: 0, ACKNOWLEDGED: 0, CANCELLED: 0 };
      const phase = reliableMessagePhase({ status: r.status as ReliableMessageStatus, dead: r.dead } as ReliableMessage);
      if (phase !== "ABSENT") counts[phase] += r.n;
      byQueue.set(r.queue, counts);
    }
    return [...byQueue].map(([queue, phases]) => ({ queue, phases }));
  }
  async countDeliveries(): Promise<readonly SubscriptionDeliveryCounts[]> {
    const rows = await pgCall("reliable delivery count", () => countDeliveriesBySubscription(this.#db));
    const byKey = new Map<string, { queue: string; subscription: string; phases: Record<SubscriptionDeliveryPhase, number> }>();
    for (const r of rows) {
      const key = JSON.stringify([r.queue, r.subscription]);
      const counts = byKey.get(key) ?? { queue: r.queue, subscription: r.subscription, phases: { SENDING: 0, DEAD: 0, ACKNOWLEDGED: 0 } };
      counts.phases[subscriptionPhase({ status: r.status, dead: r.dead } as SubscriptionDelivery) as SubscriptionDeliveryPhase] += r.n;
      byKey.set(key, counts);
    }
    return [...byKey.values()];
  }

}

/** The messages of `writes` when every one is an update writing no outbox row, to the next version, of a message no other write touches; else null. */
function quietUpdates(writes: readonly ReliableMessageWrite[]): ReliableMessage[] | null {
  const messages: ReliableMessage[] = [];
  for (const w of writes) {
    if (w.op !== "update" || w.send !== null || (w.deadLetter ?? null) !== null || (w.deliveries ?? []).length > 0 || w.sequence === true || w.message.version !== w.expectedVersion + 1) return null;
    messages.push(w.message);
  }
  return new Set(messages.map((m) => m.messageId)).size === messages.length ? messages : null;
}

/** One outbox row through the pipeline's own insert (same columns, payload kept as written); its EVENT_ID. */
async function insertEvent(db: Db, event: OutboxEventDraft, now: number): Promise<number> {
  const [eventId] = await insertEvents(db, [event], now);
  return eventId!;
}
