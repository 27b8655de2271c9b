import { errorMessage } from "../errors/msgx-error.js";
import { Target, type OutboxEvent } from "../outbox/outbox-event.js";
import { DEFAULT_BREAKER_POLICY, type BreakerPolicy, type BreakerState } from "../runtime/outage-breaker.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../runtime/retry-policy.js";
import { GuardedSteps } from "../runtime/guarded-step.js";
import { deliveryGuard } from "./delivery-guard.js";
import type { DeliveryDeps } from "./delivery-deps.js";
import { decideDeliveryFailure, errorKind, refusedForGood } from "./delivery-decision.js";
import { buildPrefix, DEFAULT_DELIVERY_TOPICS, msgRecord, topicFor, type DeliveryTopics } from "./delivery-records.js";
import { sendLargestPrefix } from "./send-prefix.js";

export interface MsgDispatcherOptions {
  /** The per-event target this dispatcher drains. */
  readonly target: Target;
  readonly topics: DeliveryTopics;
  /** The most events sent in one `DeliveryPort.send` call. */
  readonly batchSize: number;
  /** Faults of one event: attempts and backoff (SPEC §2.1). `headDeadlineMs` is not used here. */
  readonly policy: RetryPolicy;
  /** Broker and store outages. */
  readonly breaker: BreakerPolicy;
  /**
   * Overlap the store with the broker: while a full batch is in flight, read the next one (the
   * events above its last id), and mark a sent batch SENT while the next ones are sent. A `step`
   * then returns `sent` before its mark has landed; at most two marks are on their way (a third
   * waits for the oldest), every read from the head, failure record, DEAD mark and `settle()`
   * waits for all of them, and a crash resends at most three batches instead of one. Off by
   * default: with it off, a returned `sent` means marked.
   */
  readonly pipelined: boolean;
}

/**
 * Pipelined: how many marks may be on their way at once. A mark rewrites every row of its batch
 * (a new row version and its index entries) and, beside the send and the read-ahead on the same
 * cores, often takes longer than a send: with one allowed, each step would wait for the previous
 * batch's mark and the relay would go no faster than one mark after another.
 */
const MAX_OUTSTANDING_MARKS = 2;

export const DEFAULT_MSG_DISPATCHER_OPTIONS: MsgDispatcherOptions = {
  target: Target.MSG,
  topics: DEFAULT_DELIVERY_TOPICS,
  batchSize: 100,
  policy: DEFAULT_RETRY_POLICY,
  breaker: DEFAULT_BREAKER_POLICY,
  pipelined: false,
};

/**
 * What one `step` did and when to call again: `next` is an instant (call at or after it; `now`
 * means at once) or null (nothing pending: call when the pipeline commits events, or poll).
 */
export type DispatchStep =
  | { readonly did: "idle"; readonly next: null }
  | { readonly did: "wait"; readonly eventId: number; readonly next: number }
  | { readonly did: "outage"; readonly error: string; readonly next: number }
  /** `next` null: the batch was short and sent whole, so nothing else was due when it was read. */
  | { readonly did: "sent"; readonly eventIds: readonly number[]; readonly next: number | null }
  | { readonly did: "failed"; readonly eventId: number; readonly attempts: number; readonly error: string; readonly next: number }
  | { readonly did: "dead"; readonly eventId: number; readonly attempts: number; readonly error: string; readonly next: number };

/**
 * The per-event dispatcher (seed 000 §5.1) for `KAFKA:msg`. Each `step` takes the due head run,
 * sends it in EVENT_ID order in one `DeliveryPort.send` call and, after the acknowledgement,
 * marks it all SENT in one statement, each event with the placement the broker gave its record.
 * A fault of the call is pinned to its event by resending ever smaller prefixes; that event
 * records a failure and backs off (blocking only this target) or, with its attempts used up, ends
 * DEAD and stops blocking. An outage opens the breaker and spends no attempt. `step` never
 * sleeps: time only comes from the `Clock`.
 *
 * All state that matters is in the outbox; a new dispatcher over the same store (a restart)
 * carries on, resending at most what was acknowledged but not yet marked.
 *
 * Pipelined (`pipelined: true`), the store's reads and marks run beside the broker's sends
 * instead of between them; the order of sends and the fault handling stay as above, and a crash
 * costs up to three batches resent (see the option). Call `settle()` before letting go of a
 * pipelined dispatcher.
 */
export class MsgDispatcher {
  readonly #deps: DeliveryDeps;
  readonly #options: MsgDispatcherOptions;
  readonly #topic: string;
  readonly #steps: GuardedSteps<DispatchStep>;
  /** Pipelined: the read of the run behind the batch in flight, started as it was sent. */
  #ahead: Promise<readonly OutboxEvent[] | undefined> | null = null;
  /** Pipelined: the marks of the last sent batches (oldest first), not yet awaited. */
  #marking: Promise<void>[] = [];

  constructor(deps: DeliveryDeps, options: Partial<MsgDispatcherOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_MSG_DISPATCHER_OPTIONS, ...options };
    this.#topic = topicFor(this.#options.topics, this.#options.target);
    if (!(this.#options.batchSize >= 1)) throw new RangeError("batchSize must be at least 1");
    this.#steps = new GuardedSteps(
      deliveryGuard(
        deps,
        this.#options.target,
        this.#options.breaker,
        // An outstanding mark stays: the next step settles it before reading from the head.
        () => this.#dropAhead(),
      ),
    );
  }

  get breaker(): BreakerState {
    return this.#steps.breaker;
  }

  async step(signal?: AbortSignal): Promise<DispatchStep> {
    return this.#steps.run((now) => this.#work(now, signal), signal);
  }

  /**
   * Waits for the outstanding mark (pipelined mode) and forgets any read-ahead: afterwards the
   * store holds everything this dispatcher has done. Rethrows the mark's error, if it failed.
   */
  async settle(): Promise<void> {
    this.#dropAhead();
    await this.#settleMarking();
  }

  async #work(now: number, signal?: AbortSignal): Promise<DispatchStep> {
    const { outbox, delivery, clock, failpoint } = this.#deps;
    const { target, batchSize, pipelined } = this.#options;
    let batch = await this.#takeAhead();
    if (batch === undefined || batch.length === 0) {
      // A read from the head must not see events whose mark is still on its way.
      await this.#settleMarking();
      batch = await outbox.pending(target, now, batchSize);
    }
    const head = batch[0];
    if (head === undefined) {
      const blocked = await outbox.head(target);
      if (blocked === undefined) return { did: "idle", next: null };
      return { did: "wait", eventId: blocked.eventId, next: blocked.nextAttemptAt ?? now };
    }
    const built = buildPrefix(batch, (e) => msgRecord(e, this.#topic));
    if (built.records.length === 0) return this.#fail(head, built.fault, now, false);
    const last = batch[batch.length - 1]!.eventId;
    // Only a full batch can have more behind it; the read runs while the broker works.
    if (pipelined && batch.length === batchSize) this.#readAhead(target, now, last);
    const outcome = await sendLargestPrefix(delivery, built.records, signal);
    if (!outcome.ok) return this.#fail(head, outcome.fault, now, refusedForGood(outcome.fault));
    // Events after a failed record must wait for it: what was read behind them is dropped.
    if (outcome.sent < batch.length || built.records.length < batch.length) this.#dropAhead();
    const eventIds = batch.slice(0, outcome.sent).map((e) => e.eventId);
    failpoint?.("dispatch.after-send");
    if (!pipelined) {
      await outbox.markSent(eventIds, clock.now(), outcome.placements);
    } else {
      if (this.#marking.length >= MAX_OUTSTANDING_MARKS) await this.#marking.shift();
      const marking = outbox.markSent(eventIds, clock.now(), outcome.placements);
      // Observed here so a failure is never unhandled; it is rethrown by the next settle.
      marking.catch(() => undefined);
      this.#marking.push(marking);
    }
    // A short batch sent whole was everything due when it was read: what comes next is written
    // by a later commit, whose writer wakes the loop. Calling again at once would only read
    // nothing twice (the run behind, then the head): two empty statements per commit.
    const drained = batch.length < batchSize && eventIds.length === batch.length;
    return { did: "sent", eventIds, next: drained ? null : now };
  }

  #readAhead(target: Target, now: number, afterEventId: number): void {
    // A failed read-ahead is only a lost shortcut: the next step reads from the head.
    this.#ahead = this.#deps.outbox.pending(target, now, this.#options.batchSize, afterEventId).catch(() => undefined);
  }

  #takeAhead(): Promise<readonly OutboxEvent[] | undefined> | undefined {
    const ahead = this.#ahead ?? undefined;
    this.#ahead = null;
    return ahead;
  }

  #dropAhead(): void {
    this.#ahead = null;
  }

  /** Waits for every outstanding mark (all of them, even after one failed); rethrows the first failure. */
  async #settleMarking(): Promise<void> {
    if (this.#marking.length === 0) return;
    const marking = this.#marking;
    this.#marking = [];
    const failed = (await Promise.allSettled(marking)).find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  /** Records a fault of `head`; `refused`: the broker refused its record for good. */
  async #fail(head: OutboxEvent, fault: unknown, now: number, refused: boolean): Promise<DispatchStep> {
    const { outbox, logger } = this.#deps;
    this.#dropAhead();
    await this.#settleMarking();
    const error = errorMessage(fault);
    const decision = decideDeliveryFailure(head.attempts, now, this.#options.policy, refused);
    const fields = { target: this.#options.target, eventId: head.eventId, attempts: decision.attempts, error };
    if (decision.action === "dead") {
      await outbox.markDead(head.eventId, error, decision.attempts);
      logger.error(refused ? "event dead-lettered: the broker refused its record" : "event dead-lettered: attempts used up", { ...fields, errorClass: errorKind(fault) });
      return { did: "dead", eventId: head.eventId, attempts: decision.attempts, error, next: now };
    }
    await outbox.recordFailure(head.eventId, decision.attempts, decision.nextAttemptAt, error);
    logger.warn("event delivery failed; backing off", { ...fields, retryAt: decision.nextAttemptAt });
    return { did: "failed", eventId: head.eventId, attempts: decision.attempts, error, next: decision.nextAttemptAt };
  }
}
