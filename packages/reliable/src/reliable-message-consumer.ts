import { errorMessage, isOutage } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { SimulatedCrashMarker } from "@msgx/core";
import type { ConsumeLog } from "./consume-log.js";
import { parseReliableMessageEnvelope, type ReliableMessageEnvelope } from "./message-envelope.js";

/** The consumer's business action: it writes through `tx`, the same transaction as the claim. */
export type ReliableMessageHandler<Tx> = (message: ReliableMessageEnvelope, tx: Tx) => Promise<void>;

/** Where tests crash the consumer: after its commit (before the ack), after the ack. */
export type ConsumerFailpoint = "consume.after-commit" | "consume.after-ack";

/** Tries of a throwing handler before the message is rejected to the service. */
export const DEFAULT_CONSUMER_MAX_ATTEMPTS = 3;
/** The wait after the n-th failed try (the last one repeats). */
export const DEFAULT_CONSUMER_RETRY_WAITS_MS: readonly number[] = [200, 1_000];
/**
 * A reject reason longer than this is cut: the service keeps it as the message's `lastError`, and
 * a stack-sized error message must not bloat every row and response that carries it.
 */
export const MAX_REJECT_REASON_LENGTH = 1_000;

export interface ReliableMessageConsumerDeps<Tx> {
  readonly log: ConsumeLog<Tx>;
  readonly handler: ReliableMessageHandler<Tx>;
  /** Tells the service the message is done (its `acknowledge`, locally or over the network). */
  readonly acknowledge: (messageId: string) => Promise<unknown>;
  /**
   * Tells the service the handler failed for good (its `reject`, locally or over the network): the
   * service redelivers it later or, past its own reject budget, moves it to the dead-letter topic.
   * Without it a failing handler is rethrown on its first try and the transport redelivers (no
   * in-process budget).
   */
  readonly reject?: (messageId: string, reason: string) => Promise<unknown>;
  /** Tries of a throwing handler, the first included, before `reject` (default 3; integer >= 1). */
  readonly maxAttempts?: number;
  /** The wait before try n+1 is `retryWaitsMs[n-1]`, the last entry repeating (default [200, 1000] ms). */
  readonly retryWaitsMs?: readonly number[];
  readonly clock: Clock;
  readonly logger?: Logger;
  /** When set, envelopes of another queue are refused as invalid. */
  readonly queue?: string;
  readonly failpoint?: (name: ConsumerFailpoint) => void;
}

export type ConsumeOutcome =
  /** Handled now; `acknowledged` is false when the ack failed (the recovery job's resend will retry it). */
  | { readonly kind: "consumed"; readonly messageId: string; readonly acknowledged: boolean }
  /** Handled before (a resend or a redelivery): only acknowledged again. */
  | { readonly kind: "duplicate"; readonly messageId: string; readonly acknowledged: boolean }
  /** Not a reliable-message envelope (or another queue's): skipped, never handled. */
  | { readonly kind: "invalid"; readonly reason: string }
  /**
   * Try `attempt` of the handler threw and rolled back; the budget is not spent. The caller keeps
   * the record (does not commit its offset) and calls `handle(value, attempt + 1)` at or after `at`.
   */
  | { readonly kind: "retry"; readonly messageId: string; readonly attempt: number; readonly at: number; readonly reason: string }
  /** Every try threw; the service took the reject. Nothing was handled: the caller moves past the record. */
  | { readonly kind: "rejected"; readonly messageId: string; readonly attempts: number; readonly reason: string };

/**
 * The consumer side of a reliable message (seed `AccountingMessageListener`, fixed): in ONE
 * transaction of the consumer's database it claims the message id in the consume log and runs
 * the handler; only after that commit does it acknowledge the message to the service, which
 * marks it ACKNOWLEDGED so it is never resent.
 *
 * - A redelivery (Kafka retry, a resend by the recovery job, a duplicate after a lost broker ack)
 *   finds the claim and skips the handler, then acknowledges again: handled in effect once.
 * - A handler error rolls everything back (unlike the seed, which logged and dropped it). Without
 *   `reject` it is rethrown and the transport redelivers. With `reject`, try `attempt` below
 *   `maxAttempts` answers `retry` (the caller waits and calls again: `handle` never sleeps, time
 *   comes from the `Clock`); the last try calls `reject` and answers `rejected`, so the transport
 *   moves on and one poisonous message never blocks its partition. A failed `reject` is logged and
 *   its error rethrown: the transport redelivers and the budget starts again.
 * - An outage (the consume log's own errors, or a handler error of kind DEPENDENCY_UNAVAILABLE /
 *   COMMIT_UNKNOWN) is rethrown and spends no try: an outage must never end in a reject (SPEC: an
 *   outage never makes anything DEAD).
 * - A crash between commit and ack leaves the message SENDING; the resend is then a duplicate.
 * - A failed ack is logged, not thrown: the effect is committed, and the next resend retries it.
 */
export class ReliableMessageConsumer<Tx> {
  readonly #deps: ReliableMessageConsumerDeps<Tx>;
  readonly #logger: Logger;
  readonly #maxAttempts: number;
  readonly #retryWaitsMs: readonly number[];

  constructor(deps: ReliableMessageConsumerDeps<Tx>) {
    const maxAttempts = deps.maxAttempts ?? DEFAULT_CONSUMER_MAX_ATTEMPTS;
    if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw new TypeError(`maxAttempts must be an integer >= 1, got ${String(maxAttempts)}`);
    const waits = deps.retryWaitsMs ?? DEFAULT_CONSUMER_RETRY_WAITS_MS;
    if (waits.length === 0 || !waits.every((w) => Number.isSafeInteger(w) && w >= 0)) {
      throw new TypeError(`retryWaitsMs must be a non-empty list of integer milliseconds >= 0, got ${JSON.stringify(waits)}`);
    }
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
    this.#maxAttempts = maxAttempts;
    this.#retryWaitsMs = [...waits];
  }

  /**
   * Handles one delivered record value (the JSON envelope). `attempt` is the try's number: 1 for
   * a record just delivered, `outcome.attempt + 1` when called again after a `retry` outcome.
   */
  async handle(value: string | null | undefined, attempt = 1): Promise<ConsumeOutcome> {
    if (!Number.isSafeInteger(attempt) || attempt < 1) throw new TypeError(`attempt must be an integer >= 1, got ${String(attempt)}`);
    const parsed = parseReliableMessageEnvelope(value);
    if (!parsed.ok) return this.#invalid(parsed.reason);
    const message = parsed.envelope;
    const { log, handler, clock, queue, failpoint } = this.#deps;
    if (queue !== undefined && message.consumerQueue !== queue) {
      return this.#invalid(`message ${message.messageId} is for queue ${message.consumerQueue}, not ${queue}`);
    }
    // Set only when the handler threw: an error of the log itself (BEGIN, claim, COMMIT) is an
    // outage of the consumer's database, never a try of the handler.
    let handlerError: { readonly error: unknown } | null = null;
    let fresh: boolean;
    try {
      fresh = await log.transaction(async (tx) => {
        const claimed = await log.claim(tx, {
          messageId: message.messageId,
          consumerQueue: message.consumerQueue,
          sendCount: message.sendCount,
          consumedAt: clock.now(),
        });
        if (claimed) {
          try {
            await handler(message, tx);
          } catch (e) {
            handlerError = { error: e };
            throw e;
          }
        }
        return claimed;
      });
    } catch (e) {
      const failed = handlerError as { readonly error: unknown } | null;
      if (failed === null || failed.error !== e || isOutage(e) || e instanceof SimulatedCrashMarker) throw e;
      return this.#failed(message.messageId, attempt, e);
    }
    failpoint?.("consume.after-commit");
    const acknowledged = await this.#acknowledge(message.messageId);
    failpoint?.("consume.after-ack");
    return { kind: fresh ? "consumed" : "duplicate", messageId: message.messageId, acknowledged };
  }

  /** Try `attempt` threw (and rolled back): retry later, reject, or (without `reject`) rethrow. */
  async #failed(messageId: string, attempt: number, error: unknown): Promise<ConsumeOutcome> {
    const { reject, clock } = this.#deps;
    if (reject === undefined) throw error;
    const reason = describeError(error);
    if (attempt < this.#maxAttempts) {
      const at = clock.now() + this.#retryWaitsMs[Math.min(attempt, this.#retryWaitsMs.length) - 1]!;
      this.#logger.warn("reliable message handler failed; will try again", { messageId, attempt, maxAttempts: this.#maxAttempts, error: reason, retryAt: at });
      return { kind: "retry", messageId, attempt, at, reason };
    }
    const rejectReason = cut(`handler failed ${attempt} time${attempt === 1 ? "" : "s"}; last: ${reason}`);
    try {
      await reject(messageId, rejectReason);
    } catch (e) {
      this.#logger.error("reliable message handler failed past its budget and the reject failed; the transport will redeliver", {
        messageId,
        attempts: attempt,
        error: reason,
        rejectError: errorMessage(e),
      });
      throw e;
    }
    this.#logger.warn("reliable message rejected: the handler failed past its budget", { messageId, attempts: attempt, reason: rejectReason });
    return { kind: "rejected", messageId, attempts: attempt, reason: rejectReason };
  }

  async #acknowledge(messageId: string): Promise<boolean> {
    try {
      await this.#deps.acknowledge(messageId);
      return true;
    } catch (e) {
      this.#logger.warn("reliable message consumed but not acknowledged; a resend will retry", { messageId, error: errorMessage(e) });
      return false;
    }
  }

  #invalid(reason: string): ConsumeOutcome {
    this.#logger.error("reliable message refused: not a valid envelope", { reason });
    return { kind: "invalid", reason };
  }
}

const describeError = (e: unknown): string => `${e instanceof Error ? e.name : "Error"}: ${errorMessage(e)}`;

const cut = (reason: string): string => (reason.length <= MAX_REJECT_REASON_LENGTH ? reason : `${reason.slice(0, MAX_REJECT_REASON_LENGTH - 1)}…`);
