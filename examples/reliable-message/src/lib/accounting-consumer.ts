import { silentLogger, systemClock, type Clock, type Logger } from "@msgx/core";
import { sql, type Kysely, type Transaction } from "kysely";
import { PgConsumeLog, ReliableMessageConsumer, ReliableMessageKafkaConsumer, type ReliableMessageEnvelope } from "./core.js";
import type { Voucher } from "./payment-producer.js";

export interface AccountingConsumerOptions {
  readonly db: Kysely<any>;
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly queue: string;
  readonly groupId: string;
  /** Acknowledges a message at the message service (in-process here; an HTTP call in production). */
  readonly acknowledge: (messageId: string) => Promise<unknown>;
  /** Messages whose booking fails this many times before it succeeds (to show redelivery). */
  readonly failFirst?: ReadonlyMap<string, number>;
  /** Messages whose acknowledgement is lost this many times (to show the recovery job's resend). */
  readonly loseAckFirst?: ReadonlyMap<string, number>;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * The accounting service (seed `AccountingMessageListener`): books one ledger row per voucher in
 * its own transaction, together with the consume-log claim, and acknowledges the message only
 * after that commit. A redelivered or resent voucher is booked once.
 */
export class AccountingConsumer {
  /** Booking attempts per message id (failed ones included). */
  readonly attempts = new Map<string, number>();
  readonly helper: ReliableMessageConsumer<Transaction<any>>;
  readonly #kafka: ReliableMessageKafkaConsumer;

  constructor(options: AccountingConsumerOptions) {
    const failFirst = new Map(options.failFirst ?? []);
    const loseAck = new Map(options.loseAckFirst ?? []);
    this.helper = new ReliableMessageConsumer<Transaction<any>>({
      log: new PgConsumeLog(options.db),
      queue: options.queue,
      clock: options.clock ?? systemClock,
      logger: options.logger ?? silentLogger,
      acknowledge: async (messageId) => {
        const left = loseAck.get(messageId) ?? 0;
        if (left > 0) {
          loseAck.set(messageId, left - 1);
          throw new Error(`acknowledgement of ${messageId} lost (simulated)`);
        }
        return options.acknowledge(messageId);
      },
      handler: async (message: ReliableMessageEnvelope, trx) => {
        const n = (this.attempts.get(message.messageId) ?? 0) + 1;
        this.attempts.set(message.messageId, n);
        const v = JSON.parse(message.body) as Voucher;
        await sql`INSERT INTO ledger (voucher_no, order_no, amount, payer, receiver)
                  VALUES (${message.messageId}, ${v.orderNo}, ${v.amount}::numeric, ${v.payer}, ${v.receiver})`.execute(trx);
        const left = failFirst.get(message.messageId) ?? 0;
        if (left > 0) {
          failFirst.set(message.messageId, left - 1);
          throw new Error(`booking ${message.messageId} failed (attempt ${n}, simulated)`);
        }
      },
    });
    this.#kafka = new ReliableMessageKafkaConsumer({
      kafka: { brokers: options.brokers, clientId: "accounting" },
      groupId: options.groupId,
      topic: options.topic,
      consumer: this.helper,
      retry: { retries: 8, initialRetryTime: 200 },
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
      maxWaitTimeMs: 100,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  start(): Promise<void> {
    return this.#kafka.start();
  }

  stop(): Promise<void> {
    return this.#kafka.stop();
  }
}
