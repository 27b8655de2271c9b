/**
 * The reliable-message example (examples/reliable-message) end to end on real PostgreSQL and
 * Kafka: a payment producer, the message service (API, check-back and recovery jobs, outbox relay
 * to Kafka) and an accounting consumer group. The scenario includes a producer that crashes
 * between its payment commit and the confirm (the check-back job must confirm), one that crashes
 * after prepare (the check-back job must fence the order and delete the message), a payment
 * that fails (the producer cancels), and a booking that fails twice before it succeeds (Kafka
 * redelivers; the consume log keeps it to one ledger row), and a lost acknowledgement (the
 * recovery job resends; the resend is a duplicate that only acknowledges). Asserted on the rows
 * left behind.
 */
import { connect } from "node:net";
import { gateService } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { messageIdOf } from "../../../examples/reliable-message/src/lib/payment-producer.js";
import { runPaymentScenario } from "../../../examples/reliable-message/src/lib/payment-scenario.js";
import { PG_URL, probePostgres } from "./pg-harness.js";

const brokers = (process.env["MSGX_KAFKA_BROKERS"] ?? "127.0.0.1:9092").split(",").map((b) => b.trim());

function probeKafka(): Promise<void> {
  const [host, port] = [brokers[0]!.slice(0, brokers[0]!.lastIndexOf(":")), Number(brokers[0]!.slice(brokers[0]!.lastIndexOf(":") + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      reject(new Error(`no answer from ${brokers[0]} within 2 s`));
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", (e) => reject(e));
  });
}

const SUITE = "adapters-pg: reliable-message example on PostgreSQL + Kafka";
const pgGate = await gateService("PostgreSQL", SUITE, probePostgres);
const kafkaGate = pgGate.available ? await gateService("Kafka", SUITE, probeKafka) : pgGate;

describe.skipIf(!pgGate.available || !kafkaGate.available)("reliable-message example (PostgreSQL + Kafka)", () => {
  it("payments with producer crashes, a failed payment, a twice-failing booking and a lost ack: each paid order booked once, nothing left", { timeout: 90_000 }, async () => {
    const report = await runPaymentScenario({ pgUrl: PG_URL, brokers, timeoutMs: 50_000 });
    expect(report.settled, JSON.stringify(report, null, 1)).toBe(true);
    const byFault = (fault: string | undefined) => report.orders.filter((o) => o.fault === fault).map((o) => o.order.orderNo);
    const [crashedAfterBusiness] = byFault("crash-after-business");
    const [crashedAfterPrepare] = byFault("crash-after-prepare");
    const [failedPayment] = byFault("business-fails");
    const healthy = byFault(undefined);
    const twiceFailing = report.orders.find((o) => o.consumerFailures === 2)!.order.orderNo;

    // The producer's table: paid orders SUCCESS; the order whose producer died after prepare was
    // fenced ABORTED by the checker; the failed payment left nothing.
    const payment = new Map(report.payments.map((p) => [p.order_no, p.status]));
    for (const o of [...healthy, crashedAfterBusiness!]) expect(payment.get(o), o).toBe("SUCCESS");
    expect(payment.get(crashedAfterPrepare!)).toBe("ABORTED");
    expect(payment.has(failedPayment!)).toBe(false);
    const paid = report.payments.filter((p) => p.status === "SUCCESS").map((p) => p.order_no).sort();

    // The consumer's ledger: exactly one row per paid order, with the right amount; nothing else.
    expect(report.ledger.map((l) => l.order_no).sort()).toEqual(paid);
    expect(report.ledger.map((l) => l.voucher_no).sort()).toEqual(paid.map(messageIdOf).sort());
    for (const l of report.ledger) {
      expect(l.amount).toBe(report.orders.find((o) => o.order.orderNo === l.order_no)!.order.amount);
    }
    expect(report.consumeLog.map((c) => c.message_id).sort()).toEqual(paid.map(messageIdOf).sort());

    // The booking that failed twice was tried at least three times and booked once.
    expect(report.bookingAttempts[messageIdOf(twiceFailing)]).toBeGreaterThanOrEqual(3);

    // The lost acknowledgement: the recovery job sent the message again (same id, send #2), the
    // consumer saw a duplicate (booked once, by send #1) and acknowledged it.
    const lostAck = messageIdOf(report.orders.find((o) => o.lostAcks === 1)!.order.orderNo);
    expect(report.events.filter((e) => e.partition_key === lostAck).map((e) => e.state_version).slice(0, 2)).toEqual(["1", "2"]);
    expect(report.consumeLog.find((c) => c.message_id === lostAck)!.send_count).toBe(1);
    expect(report.bookingAttempts[lostAck]).toBe(1);
    expect(report.stats.resent).toBeGreaterThanOrEqual(1);

    // The message service: nothing left waiting or unacknowledged; every send delivered; only
    // paid orders were ever sent; the crash after the payment commit was confirmed by check-back
    // and the prepared-then-abandoned message deleted by it.
    expect(report.remainingMessages).toEqual([]);
    expect(report.events.every((e) => e.status === "SENT")).toBe(true);
    expect(new Set(report.events.map((e) => e.partition_key))).toEqual(new Set(paid.map(messageIdOf)));
    expect(report.events.some((e) => e.partition_key === messageIdOf(crashedAfterBusiness!))).toBe(true);
    expect(report.stats.checkBackConfirmed).toBeGreaterThanOrEqual(1);
    expect(report.stats.checkBackDeleted).toBeGreaterThanOrEqual(1);
    expect(report.stats.dead).toBe(0);
    expect(report.durationMs).toBeLessThan(60_000);
  });
});
