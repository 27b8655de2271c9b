import { sql, type Kysely } from "kysely";
import type { ReliableMessageChecker, ReliableMessageService } from "./core.js";

/** One payment of the scenario. */
export interface Order {
  readonly orderNo: string;
  readonly amount: string;
  readonly payer: string;
  readonly receiver: string;
}

/** The voucher the accounting service books (the message body). */
export type Voucher = Order;

/** Where a test or the demo makes the producer die, or its business transaction fail. */
export type ProducerFault = "crash-after-prepare" | "business-fails" | "crash-after-business";

/** Thrown at a fault point: the producer process "dies" there, nothing after it runs. */
export class ProducerCrash extends Error {
  override readonly name = "ProducerCrash";
}

export const ACCOUNTING_QUEUE = "accounting";

/** The message id of an order's accounting message. */
export const messageIdOf = (orderNo: string): string => `PAY-${orderNo}`;

export type PaymentResult = "paid" | "not-paid";

/**
 * The payment service (seed: the trade module around `RpTransactionMessageService`): prepare the
 * accounting message, pay in its own transaction, then confirm — or cancel when the payment did
 * not commit. A crash anywhere is repaired by the check-back job asking {@link paymentChecker}.
 */
export class PaymentProducer {
  constructor(
    private readonly db: Kysely<any>,
    private readonly messages: ReliableMessageService,
    private readonly queue: string = ACCOUNTING_QUEUE,
  ) {}

  async pay(order: Order, fault?: ProducerFault): Promise<PaymentResult> {
    const messageId = messageIdOf(order.orderNo);
    const voucher: Voucher = order;
    // 1. Prepare: stored, not sent.
    await this.messages.saveWaitingConfirm({
      messageId,
      body: JSON.stringify(voucher),
      consumerQueue: this.queue,
      dataType: "AccountingVoucher",
      field1: order.orderNo,
    });
    if (fault === "crash-after-prepare") throw new ProducerCrash(`${order.orderNo}: crashed after prepare`);
    // 2. The business transaction, in the payment service's own database.
    let paid: boolean;
    try {
      await this.db.transaction().execute(async (trx) => {
        await sql`INSERT INTO payment (order_no, status, amount, payer, receiver, message_id)
                  VALUES (${order.orderNo}, 'SUCCESS', ${order.amount}::numeric, ${order.payer}, ${order.receiver}, ${messageId})`.execute(trx);
        if (fault === "business-fails") throw new Error(`${order.orderNo}: payment refused by the bank`);
      });
      paid = true;
    } catch {
      // Refused, or the check-back job fenced the order (its ABORTED row holds the key).
      paid = false;
    }
    if (fault === "crash-after-business") throw new ProducerCrash(`${order.orderNo}: crashed after the payment committed`);
    // 3. Confirm (sends) or cancel (deletes unsent).
    if (paid) await this.messages.confirmAndSend(messageId);
    else await this.messages.cancel(messageId);
    return paid ? "paid" : "not-paid";
  }
}

/**
 * The payment service's answer to the check-back job (seed `handleWaitingConfirmTimeOutMessages`,
 * which looked the order up by field1). It never answers "delete" while the payment could still
 * commit: it first inserts an ABORTED row under the order number. The insert waits for a payment
 * transaction in flight on the same key; if that commits, the insert does nothing and the answer
 * is "confirm"; otherwise the ABORTED row makes every later payment attempt of the order fail.
 */
export function paymentChecker(db: Kysely<any>): ReliableMessageChecker {
  return async (message) => {
    const orderNo = message.field1;
    if (orderNo === null) return "later";
    await sql`INSERT INTO payment (order_no, status, message_id) VALUES (${orderNo}, 'ABORTED', ${message.messageId})
              ON CONFLICT (order_no) DO NOTHING`.execute(db);
    const { rows } = await sql<{ status: string }>`SELECT status FROM payment WHERE order_no = ${orderNo}`.execute(db);
    return rows[0]?.status === "SUCCESS" ? "confirm" : "delete";
  };
}
