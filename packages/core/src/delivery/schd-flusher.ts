import { errorMessage } from "../errors/msgx-error.js";
import { Target } from "../outbox/outbox-event.js";
import { DEFAULT_BREAKER_POLICY, type BreakerPolicy, type BreakerState } from "../runtime/outage-breaker.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../runtime/retry-policy.js";
import { GuardedSteps } from "../runtime/guarded-step.js";
import { deliveryGuard } from "./delivery-guard.js";
import type { DeliveryDeps } from "./delivery-deps.js";
import { decideDeliveryFailure, errorKind, refusedForGood } from "./delivery-decision.js";
import { isDue } from "../outbox/due-prefix.js";
import { buildPrefix, DEFAULT_DELIVERY_TOPICS, schdRecord, topicFor, type DeliveryTopics } from "./delivery-records.js";
import { mergeSchd, type SchdGroup } from "./schd-merge.js";
import { DEFAULT_SCHD_FLUSH_POLICY, shouldFlush, type SchdFlushPolicy } from "./schd-flush-decision.js";
import { sendLargestPrefix, type PrefixOutcome } from "./send-prefix.js";

export interface SchdFlusherOptions extends SchdFlushPolicy {
  readonly topics: DeliveryTopics;
  /** The most pending events read and merged per flush (the seed's flush-limit). */
  readonly batchLimit: number;
  /** Faults of one FLID's record: attempts and backoff (SPEC §2.1). */
  readonly policy: RetryPolicy;
  /** Broker and store outages. */
  readonly breaker: BreakerPolicy;
}

export const DEFAULT_SCHD_FLUSHER_OPTIONS: SchdFlusherOptions = {
  ...DEFAULT_SCHD_FLUSH_POLICY,
  topics: DEFAULT_DELIVERY_TOPICS,
  batchLimit: 500,
  policy: DEFAULT_RETRY_POLICY,
  breaker: DEFAULT_BREAKER_POLICY,
};

/** A FLID whose record failed in a flush: backing off, or (`dead`) ended with its events. */
export interface FlidFault {
  readonly flid: string;
  readonly eventIds: readonly number[];
  readonly attempts: number;
  readonly error: string;
}

/**
 * What one `step` did and when to call again (`next`: an instant, or null when nothing is
 * pending). Calling earlier than `next` is harmless: the step re-checks the threshold.
 */
export type FlushStep =
  | { readonly did: "idle"; readonly next: null }
  | { readonly did: "wait"; readonly next: number }
  | { readonly did: "outage"; readonly error: string; readonly next: number }
  | {
      readonly did: "flushed";
      /** FLIDs whose newest state was acknowledged. */
      readonly sent: readonly string[];
      /** Every event those records represented, marked SENT. */
      readonly markedSent: readonly number[];
      readonly failed: readonly FlidFault[];
      readonly dead: readonly FlidFault[];
      readonly next: number;
    };

/**
 * The schd flusher (seed 000 §5.2) for `KAFKA:schd`. When `shouldFlush` says so it reads the
 * pending events oldest first, merges them per FLID keeping the newest `stateVersion`, and sends
 * one record per FLID (the full latest state, or a null-value tombstone) in one call; on the
 * acknowledgement every event a record represented is marked SENT in one statement. A fault is
 * pinned to its FLID by resending smaller prefixes; that FLID alone backs off (its events carry
 * the backoff) or ends DEAD, the others go on. An outage opens the breaker and spends nothing.
 *
 * Versions never go down on a key: a FLID's events are always merged together (a newer event
 * joins its FLID's backoff), pending events are read oldest first, and a send marks every older
 * event with the newest — so an older version can only be sent before a newer one, never after.
 * This relies on the pipeline writing a FLID's schd events with rising `stateVersion`.
 */
export class SchdFlusher {
  readonly #deps: DeliveryDeps;
  readonly #options: SchdFlusherOptions;
  readonly #topic: string;
  readonly #steps: GuardedSteps<FlushStep>;
  #lastFlushAt: number | null = null;
  #backlog = false;

  constructor(deps: DeliveryDeps, options: Partial<SchdFlusherOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_SCHD_FLUSHER_OPTIONS, ...options };
    this.#topic = topicFor(this.#options.topics, Target.SCHD);
    if (!(this.#options.batchLimit >= 1)) throw new RangeError("batchLimit must be at least 1");
    this.#steps = new GuardedSteps(deliveryGuard(deps, Target.SCHD, this.#options.breaker));
  }

  get breaker(): BreakerState {
    return this.#steps.breaker;
  }

  get lastFlushAt(): number | null {
    return this.#lastFlushAt;
  }

  async step(signal?: AbortSignal): Promise<FlushStep> {
    return this.#steps.run((now) => this.#work(now, signal, false), signal);
  }

  /**
   * Flushes what is due now, whatever the interval and the threshold say: the last flush before a
   * stop, so no coalesced state waits for a process that is going away. One window (`batchLimit`);
   * `did: "flushed"` with a `next` of now means more is behind it. FLIDs backing off stay pending.
   */
  async flush(signal?: AbortSignal): Promise<FlushStep> {
    return this.#steps.run((now) => this.#work(now, signal, true), signal);
  }

  async #work(now: number, signal: AbortSignal | undefined, force: boolean): Promise<FlushStep> {
    const { outbox, delivery, clock, failpoint } = this.#deps;
    const { intervalMs, batchLimit } = this.#options;
    const pending = await outbox.countPending(Target.SCHD);
    if (pending === 0) return { did: "idle", next: null };
    if (!force && !shouldFlush({ now, lastFlushAt: this.#lastFlushAt, pending, backlog: this.#backlog }, this.#options)) {
      return { did: "wait", next: (this.#lastFlushAt ?? now) + intervalMs };
    }
    const events = await outbox.pendingSchd(batchLimit);
    const due = mergeSchd(events).filter((g) => isDue(g.nextAttemptAt, now));
    const sent: string[] = [];
    const markedSent: number[] = [];
    const failed: FlidFault[] = [];
    const dead: FlidFault[] = [];
    let rest = due;
    while (rest.length > 0) {
      const built = buildPrefix(rest, (g) => schdRecord(g.newest, this.#topic));
      const outcome: PrefixOutcome =
        built.records.length === 0 ? { ok: false, fault: built.fault } : await sendLargestPrefix(delivery, built.records, signal);
      if (outcome.ok) {
        const done = rest.slice(0, outcome.sent);
        const ids = done.flatMap((g) => g.represented.map((e) => e.eventId));
        // A record carries its group's newest event: only that one is where the broker put it;
        // the older ones it superseded were never records of their own.
        const placements = done.flatMap((g, i) => g.represented.map((e) => (e === g.newest ? (outcome.placements[i] ?? null) : null)));
        failpoint?.("schd.after-send");
        await outbox.markSent(ids, clock.now(), placements);
        sent.push(...done.map((g) => g.flid));
        markedSent.push(...ids);
        rest = rest.slice(outcome.sent);
      } else {
        const [group] = rest as [SchdGroup, ...SchdGroup[]];
        // A record that could not even be built is no broker refusal: it backs off as a fault.
        const fault = await this.#fail(group, outcome.fault, now, built.records.length > 0 && refusedForGood(outcome.fault));
        (fault.dead ? dead : failed).push(fault.fault);
        rest = rest.slice(1);
      }
    }
    this.#lastFlushAt = now;
    // A full window that made progress may have more behind it: go again at once. (A window of
    // FLIDs that are all backing off is no progress: wait for the next interval instead.)
    this.#backlog = events.length >= batchLimit && due.length > 0;
    const next = this.#backlog ? now : now + intervalMs;
    return { did: "flushed", sent, markedSent, failed, dead, next };
  }

  /** Records a fault of `group`'s record; `refused`: the broker refused it for good. */
  async #fail(group: SchdGroup, fault: unknown, now: number, refused: boolean): Promise<{ dead: boolean; fault: FlidFault }> {
    const { outbox, logger } = this.#deps;
    const error = errorMessage(fault);
    const decision = decideDeliveryFailure(group.attempts, now, this.#options.policy, refused);
    const eventIds = group.represented.map((e) => e.eventId);
    const result: FlidFault = { flid: group.flid, eventIds, attempts: decision.attempts, error };
    if (decision.action === "dead") {
      // The newest last: a crash part-way leaves it PENDING with the group's attempts, so the
      // FLID is tried once more rather than an older version being sent on its own later.
      const older = group.represented.filter((e) => e !== group.newest);
      for (const e of older) await outbox.markDead(e.eventId, `superseded by event ${group.newest.eventId}: ${error}`, decision.attempts);
      await outbox.markDead(group.newest.eventId, error, decision.attempts);
      const why = refused ? "schd key dead-lettered: the broker refused its record" : "schd key dead-lettered: attempts used up";
      logger.error(why, { flid: group.flid, eventIds, attempts: decision.attempts, error, errorClass: errorKind(fault) });
      return { dead: true, fault: result };
    }
    for (const e of group.represented) await outbox.recordFailure(e.eventId, decision.attempts, decision.nextAttemptAt, error);
    logger.warn("schd key delivery failed; backing off", { flid: group.flid, attempts: decision.attempts, error, retryAt: decision.nextAttemptAt });
    return { dead: false, fault: result };
  }
}
