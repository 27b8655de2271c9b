import { assertReadAboveMark, duePrefix, Target, type DeliveryPlacement, type OutboxEvent, type OutboxStore, type SentMark } from "@msgx/core";
import type { Kysely } from "kysely";
import { pgCall } from "./pg-error-map.js";
import type { Db } from "./queries/db.js";
import { countPending, foldSent, getEvents, markDead, markSent, markSentAndRead, pendingEvents, pendingTargets, recordFailure } from "./queries/msg-event.js";
import type { MsgxDatabase } from "./rows/tables.js";

/**
 * `OutboxStore` on PostgreSQL/PGlite over `msg_event`. Every member is one statement. A mark
 * inserts a narrow row per event into `msg_event_sent` instead of rewriting the event row, and
 * `foldSent` moves marks into the rows later (migration `0033_sent_log`); an event is SENT when
 * either says so. Reads of a target's pending run and counts are served by the partial index on
 * `(target, event_id) WHERE status = 'PENDING'` and leave out marked events, so they stay short as
 * long as the fold keeps up. Updates are guarded by "PENDING and not marked", so a SENT or DEAD
 * event never moves again (nor changes its recorded placement).
 */
export class PgOutboxStore implements OutboxStore {
  readonly #db: Db;

  constructor(db: Kysely<MsgxDatabase>) {
    this.#db = db;
  }

  async pending(target: Target, now: number, limit: number, afterEventId?: number): Promise<readonly OutboxEvent[]> {
    return duePrefix(await pgCall("outbox pending", () => pendingEvents(this.#db, target, limit, afterEventId)), now);
  }

  async head(target: Target): Promise<OutboxEvent | undefined> {
    return (await pgCall("outbox head", () => pendingEvents(this.#db, target, 1)))[0];
  }

  markSent(eventIds: readonly number[], at: number, placements?: readonly (DeliveryPlacement | null)[]): Promise<void> {
    return pgCall("outbox markSent", () => markSent(this.#db, eventIds, at, placements));
  }

  async markSentAndRead(mark: SentMark, target: Target, now: number, limit: number, afterEventId: number): Promise<readonly OutboxEvent[]> {
    assertReadAboveMark(mark.eventIds, afterEventId);
    return duePrefix(await pgCall("outbox markSentAndRead", () => markSentAndRead(this.#db, mark, target, limit, afterEventId)), now);
  }

  foldSent(limit: number): Promise<number> {
    return pgCall("outbox foldSent", () => foldSent(this.#db, limit));
  }

  recordFailure(eventId: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
    return pgCall("outbox recordFailure", () => recordFailure(this.#db, eventId, attempts, nextAttemptAt, error));
  }

  markDead(eventId: number, error: string, attempts: number): Promise<void> {
    return pgCall("outbox markDead", () => markDead(this.#db, eventId, error, attempts));
  }

  pendingSchd(limit: number): Promise<readonly OutboxEvent[]> {
    return pgCall("outbox pendingSchd", () => pendingEvents(this.#db, Target.SCHD, limit));
  }

  pendingTargets(prefix: string): Promise<readonly Target[]> {
    return pgCall("outbox pendingTargets", () => pendingTargets(this.#db, prefix));
  }

  countPending(target: Target): Promise<number> {
    return pgCall("outbox countPending", () => countPending(this.#db, target));
  }

  get(eventIds: readonly number[]): Promise<readonly OutboxEvent[]> {
    return pgCall("outbox get", () => getEvents(this.#db, eventIds));
  }
}
