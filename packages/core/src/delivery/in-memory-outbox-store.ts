import { DeliveryStatus, Target, type OutboxEvent, type OutboxEventDraft } from "../outbox/outbox-event.js";
import { duePrefix } from "../outbox/due-prefix.js";
import { assertReadAboveMark, type OutboxStore, type SentMark } from "./outbox-store.js";
import type { DeliveryPlacement } from "../ports/delivery-port.js";
import { emptyRunDecision } from "../processing/run-decision.js";
import type { InMemoryPipelineStore } from "../processing/in-memory-pipeline-store.js";


/**
 * The in-memory `OutboxStore`, over the rows `InMemoryPipelineStore` writes (`tables.events`,
 * EVENT_IDs ascending). Plain array scans; every call first consults the pipeline store's
 * `faults`, so one `setDown(true)` takes the whole database away, as it would in production.
 */
export class InMemoryOutboxStore implements OutboxStore {
  readonly #store: InMemoryPipelineStore;

  constructor(store: InMemoryPipelineStore) {
    this.#store = store;
  }

  /** The rows themselves (shared with the pipeline store). */
  get events(): readonly OutboxEvent[] {
    return this.#store.tables.events;
  }

  /**
   * Test helper: writes `drafts` through a pipeline transaction (as a processor's events would be)
   * and returns the stored rows, EVENT_IDs ascending in the given order.
   */
  async append(drafts: readonly OutboxEventDraft[]): Promise<OutboxEvent[]> {
    const t = this.#store.tables;
    const first = t.nextEventId;
    await this.#store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, events: drafts }));
    return t.events.filter((e) => e.eventId >= first && e.eventId < first + drafts.length);
  }

  async pending(target: Target, now: number, limit: number, afterEventId = 0): Promise<readonly OutboxEvent[]> {
    this.#check("pending");
    return this.#run(target, now, limit, afterEventId);
  }

  async head(target: Target): Promise<OutboxEvent | undefined> {
    this.#check("head");
    return this.#pendingOf(target)[0];
  }

  async markSent(eventIds: readonly number[], at: number, placements: readonly (DeliveryPlacement | null)[] = []): Promise<void> {
    this.#check("markSent");
    this.#mark(eventIds, at, placements);
  }

  #mark(eventIds: readonly number[], at: number, placements: readonly (DeliveryPlacement | null)[]): void {
    const placementOf = new Map(eventIds.map((id, i) => [id, placements[i] ?? null]));
    this.#update(
      (e) => placementOf.has(e.eventId),
      (e) => ({ ...e, status: DeliveryStatus.SENT, sentAt: at, nextAttemptAt: null, placement: placementOf.get(e.eventId) ?? null }),
    );
  }

  async markSentAndRead(mark: SentMark, target: Target, now: number, limit: number, afterEventId: number): Promise<readonly OutboxEvent[]> {
    this.#check("markSentAndRead");
    assertReadAboveMark(mark.eventIds, afterEventId);
    this.#mark(mark.eventIds, mark.at, mark.placements ?? []);
    return this.#run(target, now, limit, afterEventId);
  }

  /** The rows are marked in place: nothing to fold. */
  async foldSent(_limit: number): Promise<number> {
    this.#check("foldSent");
    return 0;
  }

  async recordFailure(eventId: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
    this.#check("recordFailure");
    this.#update((e) => e.eventId === eventId, (e) => ({ ...e, attempts, nextAttemptAt, lastError: error }));
  }

  async markDead(eventId: number, error: string, attempts: number): Promise<void> {
    this.#check("markDead");
    this.#update(
      (e) => e.eventId === eventId,
      (e) => ({ ...e, status: DeliveryStatus.DEAD, attempts, nextAttemptAt: null, lastError: error }),
    );
  }

  async pendingSchd(limit: number): Promise<readonly OutboxEvent[]> {
    this.#check("pendingSchd");
    return this.#pendingOf(Target.SCHD).slice(0, limit);
  }

  async pendingTargets(prefix: string): Promise<readonly Target[]> {
    this.#check("pendingTargets");
    const pending = this.#store.tables.events.filter((e) => e.status === DeliveryStatus.PENDING && e.target.startsWith(prefix));
    return [...new Set(pending.map((e) => e.target))].sort();
  }

  async countPending(target: Target): Promise<number> {
    this.#check("countPending");
    return this.#pendingOf(target).length;
  }

  async get(eventIds: readonly number[]): Promise<readonly OutboxEvent[]> {
    this.#check("get");
    const ids = new Set(eventIds);
    return this.#sorted().filter((e) => ids.has(e.eventId));
  }

  #check(operation: string): void {
    this.#store.faults.check(`outbox.${operation}`);
  }

  #run(target: Target, now: number, limit: number, afterEventId: number): readonly OutboxEvent[] {
    const after = this.#pendingOf(target).filter((p) => p.eventId > afterEventId);
    return duePrefix(after.slice(0, Math.max(0, limit)), now);
  }

  #pendingOf(target: Target): OutboxEvent[] {
    return this.#sorted().filter((e) => e.target === target && e.status === DeliveryStatus.PENDING);
  }

  #sorted(): OutboxEvent[] {
    return [...this.#store.tables.events].sort((a, b) => a.eventId - b.eventId);
  }

  /** Replaces each PENDING row that matches; SENT and DEAD rows never change. */
  #update(match: (e: OutboxEvent) => boolean, change: (e: OutboxEvent) => OutboxEvent): void {
    const rows = this.#store.tables.events;
    rows.forEach((e, i) => {
      if (e.status === DeliveryStatus.PENDING && match(e)) rows[i] = change(e);
    });
  }
}
