import { pendingEvent, type OutboxEvent, type OutboxEventDraft, type Target } from "./outbox-event.js";

/** The most events a hand-over holds for a dispatcher that does not take them; past it, it stops listening. */
export const DEFAULT_HAND_OVER_LIMIT = 10_000;

/**
 * The events the pump committed, handed in memory to the dispatchers of the same process, so a
 * dispatcher that knows its target holds nothing else sends them without reading them back from
 * the outbox (one statement less on every message's path). One per pipeline router: its pump
 * writes, its `KAFKA:msg` and `KAFKA:ref` dispatchers read, each through its target's `HandOver`.
 *
 * The store stays the truth; a hand-over is a shortcut that is only taken while it is certain:
 * - a dispatcher starts listening right before it reads its target from the head, so the
 *   hand-over then holds every event the pump committed for the target since (those the read
 *   also returned come again and are skipped by id);
 * - `lost()` stops every target's listening. The pump calls it whenever the store may hold events
 *   whose ids did not reach `committed`: a run committed through a transaction, a commit in doubt
 *   or refused, a failed step, and a run committed at another state generation than the run
 *   handed over before it. Every writer of `KAFKA:msg` and `KAFKA:ref` rows either is the pump's
 *   `commitRun` (which never moves the generation) or moves the generation (a transaction, the
 *   history sweep's tombstones), so the pump sees another writer before any event of its own
 *   is handed over (docs/delivery.md);
 * - a hand-over holding more than its limit (a dispatcher stuck on an outage) stops listening.
 * A dispatcher that is not listening reads the store, as it always did.
 */
export class CommittedEvents {
  readonly #targets = new Map<Target, HandOver>();
  readonly #limit: number;

  constructor(limit = DEFAULT_HAND_OVER_LIMIT) {
    this.#limit = limit;
  }

  /** The hand-over of `target` (one per target, made on first use). */
  of(target: Target): HandOver {
    let handOver = this.#targets.get(target);
    if (handOver === undefined) this.#targets.set(target, (handOver = new HandOver(this.#limit)));
    return handOver;
  }

  /**
   * `drafts` were committed with the ids `eventIds` (one each, in order) at `now`: each goes to
   * its target's hand-over, if it listens. Ids that do not match the drafts one for one count as `lost()`.
   */
  committed(drafts: readonly OutboxEventDraft[], eventIds: readonly number[], now: number): void {
    if (drafts.length === 0) return;
    // A store written against the older port answers nothing: not known.
    if (!Array.isArray(eventIds) || eventIds.length !== drafts.length) return this.lost();
    for (let i = 0; i < drafts.length; i++) {
      const handOver = this.#targets.get(drafts[i]!.target);
      if (handOver?.listening === true) handOver.push({ ...pendingEvent(drafts[i]!, eventIds[i]!, now), placement: null });
    }
  }

  /** The store may hold events that were not handed over: no target listens until its next read from the head. */
  lost(): void {
    for (const handOver of this.#targets.values()) handOver.stop();
  }
}

/** One target's share of `CommittedEvents`: the events committed since its dispatcher began listening. */
export class HandOver {
  readonly #limit: number;
  #listening = false;
  #events: OutboxEvent[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get listening(): boolean {
    return this.#listening;
  }

  /** Called right before a read of the target from the head: from now on, every committed event is kept. */
  listen(): void {
    this.#listening = true;
    this.#events = [];
  }

  /** Forgets what is held and keeps nothing until the next `listen()`. */
  stop(): void {
    this.#listening = false;
    this.#events = [];
  }

  push(event: OutboxEvent): void {
    const last = this.#events[this.#events.length - 1];
    // Commits are serial and ids drawn in order: anything else means this is not the whole story.
    if ((last !== undefined && event.eventId <= last.eventId) || this.#events.length >= this.#limit) return this.stop();
    this.#events.push(event);
  }

  /**
   * While listening: takes out up to `limit` held events above `afterEventId` (the highest id the
   * dispatcher has dealt with), ascending; those at or below it are dropped. Undefined when not listening.
   */
  take(afterEventId: number, limit: number): OutboxEvent[] | undefined {
    if (!this.#listening) return undefined;
    const fresh = this.#events.findIndex((e) => e.eventId > afterEventId);
    this.#events.splice(0, fresh === -1 ? this.#events.length : fresh);
    return this.#events.splice(0, limit);
  }

  /** How many events are held. */
  get size(): number {
    return this.#events.length;
  }
}
