import type { OutboxStore } from "@msgx/core";
import { DeliveryStatus, type OutboxEvent } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import { decideReliableMessage, type LastSendState, type ReliableMessageDecision } from "./message-machine.js";
import { isReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageOptions } from "./reliable-message-options.js";
import type { ReliableMessageService } from "./reliable-message-service.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";
import { ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";

/**
 * Pure: what the recovery job does with a SENDING message at `now`, given the outbox state of its
 * last send (default `unknown`: sent at `lastSentAt`): a pending redelivery after a reject; a
 * recheck while the send is still in the outbox; nothing while the acknowledgement wait (from
 * the broker's acknowledgement) runs, then a resend, or dead once `maxSends` sends went
 * unacknowledged or the broker refused the send. (The `recover` command of the machine.)
 */
export const decideRecovery = (message: ReliableMessage, now: number, options: ReliableMessageOptions, lastSend?: LastSendState): ReliableMessageDecision =>
  decideReliableMessage({ type: "recover", ...(lastSend !== undefined ? { lastSend } : {}) }, message, { now, options });

/** The state of a send from its outbox row (undefined: the row is not there). */
export function lastSendState(row: OutboxEvent | undefined): LastSendState {
  if (row === undefined) return { state: "unknown" };
  if (row.status === DeliveryStatus.PENDING) return { state: "pending" };
  if (row.status === DeliveryStatus.DEAD) return { state: "dead", error: row.lastError ?? "refused by the broker" };
  return { state: "sent", at: row.sentAt ?? row.createdAt };
}

/** What one `step` did. */
export interface RecoveryStep {
  readonly examined: number;
  readonly resent: number;
  /** Delayed messages whose delivery time came, and messages ordered by key whose turn came: their first send written. */
  readonly delivered: number;
  /** Redelivered after a consumer's reject (no send of `maxSends` spent). */
  readonly redelivered: number;
  /** Whose last send is still in the outbox (an outage or a backlog): looked at again soon, nothing counted. */
  readonly pending: number;
  readonly dead: number;
  /** Acknowledged or changed by someone else meanwhile, or not due after all. */
  readonly skipped: number;
  /** True when the batch was full and did work: call again at once. */
  readonly more: boolean;
}

export interface RecoveryJobDeps {
  readonly service: ReliableMessageService;
  readonly store: ReliableMessageStore;
  /** The outbox, to read the row of each message's last send (`lastEventId`). */
  readonly sends: Pick<OutboxStore, "get">;
  readonly clock: Clock;
  readonly logger?: Logger;
}

/**
 * The recovery job (seed "消息恢复子系统", `handleSendingTimeOutMessage`): every SENDING message
 * whose acknowledgement wait is over is resent (a new outbox row: same message id, next send
 * number) or, past `maxSends`, marked dead with an error log (and its dead-letter row). Only
 * sends the broker acknowledged count: the job reads each message's last outbox row, and one
 * still PENDING (a broker outage) is looked at again after `outageRecheckMs`, never resent nor
 * dead for it; the wait runs from the row's `sentAt`. Each change is one store transaction with
 * its outbox row. `step` does one batch and never sleeps.
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
    const { service, store, sends, clock } = this.#deps;
    const due = await store.due(ReliableMessageStatus.SENDING, clock.now(), this.#batchSize);
    const eventIds = due.flatMap((m) => (m.lastEventId === null ? [] : [m.lastEventId]));
    const rows = new Map((eventIds.length === 0 ? [] : await sends.get(eventIds)).map((e) => [e.eventId, e]));
    const counts = { examined: 0, resent: 0, delivered: 0, redelivered: 0, pending: 0, dead: 0, skipped: 0 };
    for (const message of due) {
      signal?.throwIfAborted();
      counts.examined += 1;
      const lastSend = lastSendState(message.lastEventId === null ? undefined : rows.get(message.lastEventId));
      let event: string | null;
      let reason: string | null = null;
      try {
        const outcome = await service.execute(message.messageId, { type: "recover", lastSend }, message, { kind: "recovery", lastSend: lastSend.state });
        event = outcome.event;
        reason = outcome.message?.lastError ?? null;
        if (event === "rescheduled" && lastSend.state === "pending") event = "pending";
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
        event = null;
      }
      if (event === "pending") {
        counts.pending += 1;
      } else if (event === "delivered") {
        counts.delivered += 1;
      } else if (event === "redelivered") {
        counts.redelivered += 1;
        this.#logger.info("reliable message redelivered after a reject", { messageId: message.messageId, queue: message.consumerQueue, rejects: message.rejectCount });
      } else if (event === "resent") {
        counts.resent += 1;
        this.#logger.info("reliable message resent: no acknowledgement", {
          messageId: message.messageId,
          queue: message.consumerQueue,
          send: message.sendCount + 1,
        });
      } else if (event === "marked-dead") {
        counts.dead += 1;
        this.#deadCount += 1;
        this.#logger.error(lastSend.state === "dead" ? "reliable message dead: the broker refused it" : "reliable message dead: never acknowledged", {
          messageId: message.messageId,
          queue: message.consumerQueue,
          sends: message.sendCount,
          reason,
        });
      } else {
        counts.skipped += 1;
      }
    }
    const deliveries = await this.#stepDeliveries(counts, signal);
    if (counts.pending > 0) {
      this.#logger.warn("reliable messages: last sends still in the outbox (broker outage or backlog); not counted as attempts", { pending: counts.pending });
    }
    // A full batch of messages that were not due after all (the schedule was lengthened) is no
    // reason to call again at once.
    return { ...counts, more: (due.length === this.#batchSize || deliveries === this.#batchSize) && counts.skipped < counts.examined };
  }

  /** The same for the subscription deliveries that are due (each subscription on its own schedule); returns how many were due. */
  async #stepDeliveries(counts: Record<"examined" | "resent" | "redelivered" | "pending" | "dead" | "skipped", number>, signal?: AbortSignal): Promise<number> {
    const { service, store, sends, clock } = this.#deps;
    const due = await store.dueDeliveries(clock.now(), this.#batchSize);
    const eventIds = due.flatMap((d) => (d.lastEventId === null ? [] : [d.lastEventId]));
    const rows = new Map((eventIds.length === 0 ? [] : await sends.get(eventIds)).map((e) => [e.eventId, e]));
    for (const d of due) {
      signal?.throwIfAborted();
      counts.examined += 1;
      const lastSend = lastSendState(d.lastEventId === null ? undefined : rows.get(d.lastEventId));
      let event: string | null = null;
      try {
        event = (await service.executeSubscription(d.messageId, d.subscription, { type: "recover", lastSend }, { kind: "recovery", lastSend: lastSend.state })).event;
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
      }
      const about = { messageId: d.messageId, subscription: d.subscription };
      if (event === "rescheduled" && lastSend.state === "pending") counts.pending += 1;
      else if (event === "redelivered") counts.redelivered += 1;
      else if (event === "resent") {
        counts.resent += 1;
        this.#logger.info("reliable message resent to a subscription: no acknowledgement", { ...about, send: d.sendCount + 1 });
      } else if (event === "marked-dead") {
        counts.dead += 1;
        this.#deadCount += 1;
        this.#logger.error("reliable message dead for a subscription", { ...about, sends: d.sendCount });
      } else counts.skipped += 1;
    }
    return due.length;
  }
}
