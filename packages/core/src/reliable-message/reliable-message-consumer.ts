import { errorMessage } from "../errors/msgx-error.js";
import type { Clock } from "../runtime/clock.js";
import { silentLogger, type Logger } from "../runtime/logger.js";
import type { ConsumeLog } from "./consume-log.js";
import { parseReliableMessageEnvelope, type ReliableMessageEnvelope } from "./message-envelope.js";

/** The consumer's business action: it writes through `tx`, the same transaction as the claim. */
export type ReliableMessageHandler<Tx> = (message: ReliableMessageEnvelope, tx: Tx) => Promise<void>;

/** Where tests crash the consumer: after its commit (before the ack), after the ack. */
export type ConsumerFailpoint = "consume.after-commit" | "consume.after-ack";

export interface ReliableMessageConsumerDeps<Tx> {
  readonly log: ConsumeLog<Tx>;
  readonly handler: ReliableMessageHandler<Tx>;
  /** Tells the service the message is done (its `acknowledge`, locally or over the network). */
  readonly acknowledge: (messageId: string) => Promise<unknown>;
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
  | { readonly kind: "invalid"; readonly reason: string };

/**
 * The consumer side of a reliable message (seed `AccountingMessageListener`, fixed): in ONE
 * transaction of the consumer's database it claims the message id in the consume log and runs
 * the handler; only after that commit does it acknowledge the message to the service, which
 * deletes it so it is never resent.
 *
 * - A redelivery (Kafka retry, a resend by the recovery job, a duplicate after a lost broker ack)
 *   finds the claim and skips the handler, then acknowledges again: handled in effect once.
 * - A handler error rolls everything back and is rethrown: the transport redelivers (unlike the
 *   seed, which logged and dropped it). Nothing was acknowledged.
 * - A crash between commit and ack leaves the message SENDING; the resend is then a duplicate.
 * - A failed ack is logged, not thrown: the effect is committed, and the next resend retries it.
 */
export class ReliableMessageConsumer<Tx> {
  readonly #deps: ReliableMessageConsumerDeps<Tx>;
  readonly #logger: Logger;

  constructor(deps: ReliableMessageConsumerDeps<Tx>) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
  }

  /** Handles one delivered record value (the JSON envelope). */
  async handle(value: string | null | undefined): Promise<ConsumeOutcome> {
    const parsed = parseReliableMessageEnvelope(value);
    if (!parsed.ok) return this.#invalid(parsed.reason);
    const message = parsed.envelope;
    const { log, handler, clock, queue, failpoint } = this.#deps;
    if (queue !== undefined && message.consumerQueue !== queue) {
      return this.#invalid(`message ${message.messageId} is for queue ${message.consumerQueue}, not ${queue}`);
    }
    const fresh = await log.transaction(async (tx) => {
      const claimed = await log.claim(tx, {
        messageId: message.messageId,
        consumerQueue: message.consumerQueue,
        sendCount: message.sendCount,
        consumedAt: clock.now(),
      });
      if (claimed) await handler(message, tx);
      return claimed;
    });
    failpoint?.("consume.after-commit");
    const acknowledged = await this.#acknowledge(message.messageId);
    failpoint?.("consume.after-ack");
    return { kind: fresh ? "consumed" : "duplicate", messageId: message.messageId, acknowledged };
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
