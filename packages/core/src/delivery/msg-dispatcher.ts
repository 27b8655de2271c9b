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
import type { SentMark } from "./outbox-store.js";
import type { HandOver } from "../outbox/committed-events.js";

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
   * events above its last id) in the same statement that marks the batch sent before it
   * (`OutboxStore.markSentAndRead`); a batch with no read behind it is marked on its own while the
   * next ones are sent. A `step` then returns `sent` before its mark has landed (or been issued);
   * a mark is on its way for one step at most (the next step waits for the read that carries it;
   * a mark of its own is only issued when no read-ahead follows, so the next step reads from the
   * head), every read from the head, failure record, DEAD mark and `settle()` issues the held mark
   * and waits for every mark, and a crash resends at most three batches instead of one. Off by default: with it off, a
   * returned `sent` means marked.
   */
  readonly pipelined: boolean;
  /**
   * The events this process's pump commits for the target, handed over in memory
   * (`CommittedEvents.of(target)`). While the dispatcher knows the store holds nothing else for
   * its target — its last read from the head found nothing, or a short run it then sent whole —
   * it listens, and a step sends what was handed over without reading the store; anything else
   * (a fault, an outage, a full or partly sent batch, the hand-over lost) and it reads from the
   * head again. Marks are not waited for between handed batches (at most two are outstanding).
   * Absent: every batch is read from the store.
   */
  readonly handOver?: HandOver;
  /**
   * Pipelined with a hand-over: the marks of handed batches are gathered for up to this many
   * milliseconds (and at most `batchSize` events) and written in one statement, instead of one
   * statement per batch — at a low rate each batch is one message, and its mark a round trip of
   * its own. A `sent` step that leaves marks gathered asks to be called again when they are due
   * (`next`), and that call writes them without reading the store. Anything that reads from the
   * head, a fault and `settle()` write them first. A crash resends what was gathered (at most
   * this long's worth of records), which delivery allows. 0 (default): each batch is marked on its own.
   */
  readonly markDelayMs: number;
}

export const DEFAULT_MSG_DISPATCHER_OPTIONS: MsgDispatcherOptions = {
  target: Target.MSG,
  topics: DEFAULT_DELIVERY_TOPICS,
  batchSize: 100,
  policy: DEFAULT_RETRY_POLICY,
  breaker: DEFAULT_BREAKER_POLICY,
  pipelined: false,
  markDelayMs: 0,
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
  /** Pipelined: a sent batch whose mark waits to travel with the next read-ahead. */
  #held: SentMark | null = null;
  /** Pipelined: the mark travelling with `#ahead` (it landed if and only if the read did). */
  #carried: Promise<void> | null = null;
  /** Pipelined with a hand-over: the marks of handed batches gathered since `#gatheredSince` (`markDelayMs`). */
  #gathered: SentMark | null = null;
  #gatheredSince = 0;
  /** The highest event id this dispatcher sent or dead-lettered: a hand-over's events at or below it are old news. */
  #doneUpTo = 0;

  constructor(deps: DeliveryDeps, options: Partial<MsgDispatcherOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_MSG_DISPATCHER_OPTIONS, ...options };
    this.#topic = topicFor(this.#options.topics, this.#options.target);
    if (!(this.#options.batchSize >= 1)) throw new RangeError("batchSize must be at least 1");
    if (!(this.#options.markDelayMs >= 0)) throw new RangeError("markDelayMs must not be negative");
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
    const { target, batchSize, pipelined, handOver } = this.#options;
    const ahead = await this.#takeAhead();
    const taken = ahead === undefined || ahead.length === 0 ? handOver?.take(this.#doneUpTo, batchSize) : undefined;
    const handed = taken !== undefined && taken.length > 0;
    // Called for the gathered marks alone: nothing was committed since, and a listening hand-over
    // means the store holds nothing else for the target either.
    if (!handed && ahead === undefined && this.#gathered !== null && handOver?.listening === true) {
      this.#releaseGathered();
      return { did: "idle", next: null };
    }
    // Not too many marks on their way: a crash resends at most those batches.
    if (handed && this.#marking.length >= 2) await this.#settleMarking();
    let batch = handed ? taken : ahead;
    if (batch === undefined || batch.length === 0) {
      // A read from the head must not see events whose mark is still on its way.
      await this.#settleMarking();
      // Listening starts before the read: whatever commits after it is handed over.
      handOver?.listen();
      batch = await outbox.pending(target, now, batchSize);
    }
    const head = batch[0];
    if (head === undefined) {
      const blocked = await outbox.head(target);
      if (blocked === undefined) return { did: "idle", next: null };
      handOver?.stop();
      return { did: "wait", eventId: blocked.eventId, next: blocked.nextAttemptAt ?? now };
    }
    const built = buildPrefix(batch, (e) => msgRecord(e, this.#topic));
    if (built.records.length === 0) return this.#fail(head, built.fault, now, false);
    const last = batch[batch.length - 1]!.eventId;
    // Only a full batch can have more behind it; the read runs while the records are encoded and the broker works.
    if (pipelined && batch.length === batchSize && !handed) {
      this.#readAhead(target, now, last);
      await this.#deps.pause?.();
    } else {
      this.#releaseHeld();
    }
    const outcome = await sendLargestPrefix(delivery, built.records, signal);
    if (!outcome.ok) return this.#fail(head, outcome.fault, now, refusedForGood(outcome.fault));
    // Events after a failed record must wait for it: what was read behind them is dropped.
    if (outcome.sent < batch.length || built.records.length < batch.length) this.#dropAhead();
    const eventIds = batch.slice(0, outcome.sent).map((e) => e.eventId);
    this.#doneUpTo = Math.max(this.#doneUpTo, eventIds[eventIds.length - 1] ?? 0);
    failpoint?.("dispatch.after-send");
    const mark: SentMark = { eventIds, at: clock.now(), placements: outcome.placements };
    if (!pipelined) {
      await outbox.markSent(mark.eventIds, mark.at, mark.placements);
    } else if (this.#ahead !== null) {
      // The next step reads behind the batch it sends; this mark goes in that statement.
      this.#held = mark;
    } else if (handed && this.#options.markDelayMs > 0) {
      this.#gather(mark, now);
    } else {
      this.#track(outbox.markSent(mark.eventIds, mark.at, mark.placements));
    }
    // A short batch sent whole was everything due when it was read: what comes next is written
    // by a later commit, whose writer wakes the loop. Calling again at once would only read
    // nothing twice (the run behind, then the head): two empty statements per commit.
    const whole = eventIds.length === batch.length;
    const drained = whole && (handed ? handOver!.size === 0 : batch.length < batchSize);
    // Only a short run read from the head and sent whole says the store holds nothing else (a
    // head in backoff yields no run at all); a handed batch keeps what the hand-over knew.
    if (!whole || (!handed && batch.length === batchSize)) handOver?.stop();
    return { did: "sent", eventIds, next: !drained ? now : this.#gathered === null ? null : this.#gatheredSince + this.#options.markDelayMs };
  }

  /** Adds a handed batch's mark to the gathered ones; writes them once `markDelayMs` or `batchSize` is reached. */
  #gather(mark: SentMark, now: number): void {
    // One placement per id, so concatenated marks keep each event's own (a port may answer fewer).
    const placements = mark.eventIds.map((_, i) => mark.placements?.[i] ?? null);
    const g = this.#gathered;
    if (g === null) this.#gatheredSince = now;
    this.#gathered = {
      eventIds: g === null ? mark.eventIds : [...g.eventIds, ...mark.eventIds],
      // The last acknowledgement among them: no event's sent_at comes before its own send.
      at: mark.at,
      placements: g === null ? placements : [...(g.placements ?? []), ...placements],
    };
    if (this.#gathered.eventIds.length >= this.#options.batchSize || now - this.#gatheredSince >= this.#options.markDelayMs) this.#releaseGathered();
  }

  /** Writes the gathered marks (one statement), tracked like any outstanding mark. */
  #releaseGathered(): void {
    const g = this.#gathered;
    if (g === null) return;
    this.#gathered = null;
    this.#track(this.#deps.outbox.markSent(g.eventIds, g.at, g.placements));
  }

  #readAhead(target: Target, now: number, afterEventId: number): void {
    const { outbox } = this.#deps;
    const held = this.#held;
    this.#held = null;
    const read = held === null
      ? outbox.pending(target, now, this.#options.batchSize, afterEventId)
      : outbox.markSentAndRead(held, target, now, this.#options.batchSize, afterEventId);
    this.#carried = held === null ? null : read.then(() => undefined);
    this.#carried?.catch(() => undefined);
    // A failed read-ahead is only a lost shortcut: the next step reads from the head (after
    // settling the marks, so a failed mark surfaces there).
    this.#ahead = read.catch(() => undefined);
  }

  /** Issues the held mark on its own (nothing will be read behind it). */
  #releaseHeld(): void {
    const held = this.#held;
    if (held === null) return;
    this.#held = null;
    this.#track(this.#deps.outbox.markSent(held.eventIds, held.at, held.placements));
  }

  #track(marking: Promise<void>): void {
    // Observed here so a failure is never unhandled; it is rethrown by the next settle, which
    // the next read from the head makes (a failed mark ends the hand-over).
    marking.catch(() => this.#options.handOver?.stop());
    this.#marking.push(marking);
  }

  async #takeAhead(): Promise<readonly OutboxEvent[] | undefined> {
    const ahead = this.#ahead;
    this.#ahead = null;
    if (ahead === null) return undefined;
    const batch = await ahead;
    // A read that came back carried its mark with it; one that failed leaves the mark to settle.
    if (batch !== undefined) this.#carried = null;
    else this.#uncarry();
    return batch;
  }

  #dropAhead(): void {
    this.#ahead = null;
    this.#uncarry();
    // Whatever made the step drop the run behind (a fault, an outage) ends the hand-over too.
    this.#options.handOver?.stop();
  }

  /** The mark of a read-ahead nobody will take becomes an outstanding mark like any other. */
  #uncarry(): void {
    if (this.#carried !== null) this.#marking.push(this.#carried);
    this.#carried = null;
  }

  /** Waits for every outstanding mark (all of them, even after one failed); rethrows the first failure. */
  async #settleMarking(): Promise<void> {
    this.#releaseHeld();
    this.#releaseGathered();
    this.#uncarry();
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
      this.#doneUpTo = Math.max(this.#doneUpTo, head.eventId);
      logger.error(refused ? "event dead-lettered: the broker refused its record" : "event dead-lettered: attempts used up", { ...fields, errorClass: errorKind(fault) });
      return { did: "dead", eventId: head.eventId, attempts: decision.attempts, error, next: now };
    }
    await outbox.recordFailure(head.eventId, decision.attempts, decision.nextAttemptAt, error);
    logger.warn("event delivery failed; backing off", { ...fields, retryAt: decision.nextAttemptAt });
    return { did: "failed", eventId: head.eventId, attempts: decision.attempts, error, next: decision.nextAttemptAt };
  }
}
