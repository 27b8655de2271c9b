/**
 * The reliable-message example end to end on real PostgreSQL and Kafka:
 *
 *   pnpm --filter @msgx/example-reliable-message build
 *   node examples/reliable-message/dist/demo.js
 *
 * Environment: MSGX_PG_URL (default postgres://postgres@127.0.0.1:5432/test), MSGX_KAFKA_BROKERS
 * (default 127.0.0.1:9092), MSGX_RM_KEEP_SCHEMA=1 to keep the run's schema for a look.
 */
import type { LogFields, Logger } from "@msgx/core";
import { runPaymentScenario } from "./lib/payment-scenario.js";

const line = (level: string) => (msg: string, fields?: LogFields) => {
  if (!msg.startsWith("kafkajs")) console.log(`  [${level}] ${msg}${fields ? ` ${JSON.stringify(fields)}` : ""}`);
};
const logger: Logger = { debug() {}, info: line("info"), warn: line("warn"), error: line("error") };

const report = await runPaymentScenario({
  pgUrl: process.env["MSGX_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test",
  brokers: (process.env["MSGX_KAFKA_BROKERS"] ?? "127.0.0.1:9092").split(",").map((b) => b.trim()),
  keepSchema: process.env["MSGX_RM_KEEP_SCHEMA"] === "1",
  logger,
});

console.log(`\nschema ${report.schema}, queue ${report.queue}, topic ${report.topic}, ${report.durationMs} ms`);
console.log("\npayments (producer):");
for (const o of report.orders) {
  const row = report.payments.find((p) => p.order_no === o.order.orderNo);
  console.log(`  ${o.order.orderNo}  ${o.fault ?? "-"}`.padEnd(40) + `  producer: ${o.outcome.padEnd(17)} payment: ${row?.status ?? "(none)"}`);
}
console.log("\nledger (consumer):");
for (const l of report.ledger) console.log(`  ${l.voucher_no}  ${l.amount}  attempts: ${report.bookingAttempts[l.voucher_no] ?? 0}`);
console.log(`\nsends: ${report.events.map((e) => `${e.partition_key}#${e.state_version} ${e.status}`).join(", ")}`);
console.log(`jobs: ${JSON.stringify(report.stats)}`);
console.log(`messages left: ${report.remainingMessages.length}`);
console.log(report.settled ? "\nOK: every paid order booked once and acknowledged, every other message cancelled." : "\nNOT SETTLED within the time limit.");
process.exit(report.settled ? 0 : 1);
