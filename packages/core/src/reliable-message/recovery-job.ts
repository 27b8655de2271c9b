import type { Clock } from "../runtime/clock.js";
import { silentLogger, type Logger } from "../runtime/logger.js";
import { decideReliableMessage, type ReliableMessageDecision } from "./message-machine.js";
import { isReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageOptions } from "./reliable-message-options.js";
import type { ReliableMessageService } from "./reliable-message-service.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";
import { ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";

/**
 * Pure: what the recovery job does with a SENDING message at `now`: nothing while the
 * acknowledgement wait of its last send runs, then a resend, or dead once `maxSends` sends went
 * unacknowledged. (The `recover` command of the machine; exposed for tests and previews.)
 */
export const decideRecovery = (message: ReliableMessage, now: number, options: ReliableMessageOptions): ReliableMessageDecision =>
  decideReliableMessage({ type: "recover" }, message, { now, options });

/** What one `step` did. */
export interface RecoveryStep {
  readonly examined: number;
  readonly resent: number;
  readonly dead: number;
  /** Acknowledged or changed by someone else meanwhile, or not due after all. */
  readonly skipped: number;
  /** True when the batch was full and did work: call again at once. */
  readonly more: boolean;
}

export interface RecoveryJobDeps {
  readonly service: ReliableMessageService;
  readonly store: ReliableMessageStore;
  readonly clock: Clock;
  readonly logger?: Logger;
}

/**
 * The recovery job (seed "消息恢复子系统", `handleSendingTimeOutMessage`): every SENDING message
 * whose acknowledgement wait is over is resent (a new outbox row: same message id, next send
 * number) or, past `maxSends`, marked dead with an error log. Each resend is one store
 * transaction with its outbox row. `step` does one batch and never sleeps.
 */
export class RecoveryJob {
  readonly #deps: RecoveryJobDeps;
  readonly #logger: Logger;
  readonly #batchSize: number;
  #deadCount = 0;

  constructor(deps: RecoveryJobDeps, options: { readonly batchSize?: number } = {}) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
    this.#batchSize = options.batchSize ?? 100;
    if (!Number.isSafeInteger(this.#batchSize) || this.#batchSize < 1) throw new RangeError(`batchSize must be a positive integer: ${this.#batchSize}`);
  }

  /** Messages this job marked dead since it was built. */
  get deadCount(): number {
    return this.#deadCount;
  }

  async step(signal?: AbortSignal): Promise<RecoveryStep> {
    const { service, store, clock } = this.#deps;
    const due = await store.due(ReliableMessageStatus.SENDING, clock.now(), this.#batchSize);
    const counts = { examined: 0, resent: 0, dead: 0, skipped: 0 };
    for (const message of due) {
      signal?.throwIfAborted();
      counts.examined += 1;
      let event: string | null;
      try {
        event = (await service.execute(message.messageId, { type: "recover" }, message)).event;
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
        event = null;
      }
      if (event === "resent") {
        counts.resent += 1;
        this.#logger.info("reliable message resent: no acknowledgement", {
          messageId: message.messageId,
          queue: message.consumerQueue,
          send: message.sendCount + 1,
        });
      } else if (event === "marked-dead") {
        counts.dead += 1;
        this.#deadCount += 1;
        this.#logger.error("reliable message dead: never acknowledged", {
          messageId: message.messageId,
          queue: message.consumerQueue,
          sends: message.sendCount,
        });
      } else {
        counts.skipped += 1;
      }
    }
    // A full batch of messages that were not due after all (the schedule was lengthened) is no
    // reason to call again at once.
    return { ...counts, more: due.length === this.#batchSize && counts.skipped < counts.examined };
  }
}
