import { randomBytes } from "node:crypto";
import { createPgStores } from "@msgx/adapters-pg";
import { silentLogger, type Logger } from "@msgx/core";
import kafkajs from "kafkajs";
import { sql, type Kysely } from "kysely";
import { AccountingConsumer } from "./accounting-consumer.js";
import { ensureQueueTopics, type ReliableMessageOptions } from "./core.js";
import { migrateExample } from "./example-schema.js";
import { MessageServiceHost } from "./message-service-host.js";
import { messageIdOf, PaymentProducer, paymentChecker, ProducerCrash, type Order, type ProducerFault } from "./payment-producer.js";

export interface ScenarioOptions {
  readonly pgUrl: string;
  readonly brokers: readonly string[];
  /** Default: a fresh `rm_demo_<run>` schema, dropped at the end unless `keepSchema`. */
  readonly schema?: string;
  readonly keepSchema?: boolean;
  readonly logger?: Logger;
  /** Give up waiting for the end state after this long. Default 45 s. */
  readonly timeoutMs?: number;
}

/** One payment of the scenario and what it is meant to show. */
export interface ScenarioOrder {
  readonly order: Order;
  readonly fault?: ProducerFault;
  /** Booking fails this many times before it succeeds. */
  readonly consumerFailures?: number;
  /** The consumer's acknowledgement is lost this many times (the recovery job resends). */
  readonly lostAcks?: number;
}

/** The rows the scenario ended with, read back from PostgreSQL. */
export interface ScenarioReport {
  readonly schema: string;
  readonly queue: string;
  readonly topic: string;
  readonly orders: readonly (ScenarioOrder & { readonly outcome: string })[];
  readonly payments: readonly { readonly order_no: string; readonly status: string }[];
  readonly ledger: readonly { readonly voucher_no: string; readonly order_no: string; readonly amount: string }[];
  readonly consumeLog: readonly { readonly message_id: string; readonly send_count: number }[];
  readonly remainingMessages: readonly { readonly message_id: string; readonly status: string }[];
  readonly events: readonly { readonly partition_key: string; readonly status: string; readonly state_version: string }[];
  readonly bookingAttempts: Readonly<Record<string, number>>;
  readonly stats: MessageServiceHost["stats"];
  readonly settled: boolean;
  readonly durationMs: number;
}

/** Fast timing for a demo: check back after 2 s, resend after 4, 8, 16 s, dead after 4 sends. */
export const DEMO_OPTIONS: Partial<ReliableMessageOptions> = {
  checkAfterMs: 2_000,
  checkIntervalMs: 1_000,
  resendWaitsMs: [4_000, 8_000, 16_000],
  maxSends: 4,
};

/** The seed's scenario: payments producing accounting vouchers, with the failures it must survive. */
export function scenarioOrders(run: string): ScenarioOrder[] {
  const order = (n: number, amount: string): Order => ({ orderNo: `${run}-${n}`, amount, payer: `payer-${n}`, receiver: "merchant-1" });
  return [
    { order: order(1, "10.00") },
    { order: order(2, "20.50"), consumerFailures: 2 },
    { order: order(3, "30.00"), lostAcks: 1 },
    { order: order(4, "45.25") },
    { order: order(5, "99.99"), fault: "crash-after-business" },
    { order: order(6, "12.00"), fault: "crash-after-prepare" },
    { order: order(7, "70.00"), fault: "business-fails" },
  ];
}

/**
 * Runs the whole example against real PostgreSQL and Kafka: the message service (API, jobs,
 * relay), the payment producer and the accounting consumer, then waits until every message is
 * acknowledged or deleted and reports the rows.
 */
export async function runPaymentScenario(options: ScenarioOptions): Promise<ScenarioReport> {
  const started = Date.now();
  const logger = options.logger ?? silentLogger;
  const run = randomBytes(4).toString("hex");
  const schema = options.schema ?? `rm_demo_${run}`;
  const queue = `accounting_${run}`;
  const topic = `rmq.${queue}`;
  // The msgx pool (timeouts, search path on the schema) and migrations; `pg` is loaded by it.
  const pgStore = await createPgStores({ connectionString: options.pgUrl, schema, max: 8 });
  const db: Kysely<any> = pgStore.db;
  let host: MessageServiceHost | undefined;
  let consumer: AccountingConsumer | undefined;
  try {
    await migrateExample(db, schema);
    const admin = new kafkajs.Kafka({ clientId: "rm-demo-admin", brokers: [...options.brokers], logLevel: kafkajs.logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await ensureQueueTopics(admin, [topic], { partitions: 3 });
    } finally {
      await admin.disconnect();
    }

    host = new MessageServiceHost({ db, brokers: options.brokers, queues: [queue], options: DEMO_OPTIONS, jobIntervalMs: 500, logger });
    host.registerChecker(queue, paymentChecker(db));
    host.start();
    const orders = scenarioOrders(run);
    const service = host.service;
    consumer = new AccountingConsumer({
      db,
      brokers: options.brokers,
      topic,
      queue,
      groupId: `accounting-${run}`,
      acknowledge: (id) => service.acknowledge(id),
      failFirst: new Map(orders.filter((o) => o.consumerFailures).map((o) => [messageIdOf(o.order.orderNo), o.consumerFailures!])),
      loseAckFirst: new Map(orders.filter((o) => o.lostAcks).map((o) => [messageIdOf(o.order.orderNo), o.lostAcks!])),
      logger,
    });
    await consumer.start();

    const producer = new PaymentProducer(db, service, queue);
    const outcomes: string[] = [];
    for (const o of orders) {
      try {
        outcomes.push(await producer.pay(o.order, o.fault));
      } catch (e) {
        if (!(e instanceof ProducerCrash)) throw e;
        outcomes.push("producer crashed");
      }
    }

    const deadline = started + (options.timeoutMs ?? 45_000);
    let settled = false;
    while (Date.now() < deadline) {
      if (await isSettled(db, queue)) {
        settled = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const report = await readReport(db, queue);
    return {
      schema,
      queue,
      topic,
      orders: orders.map((o, i) => ({ ...o, outcome: outcomes[i]! })),
      ...report,
      bookingAttempts: Object.fromEntries(consumer.attempts),
      stats: { ...host.stats },
      settled,
      durationMs: Date.now() - started,
    };
  } finally {
    await consumer?.stop().catch(() => undefined);
    await host?.stop().catch(() => undefined);
    if (options.keepSchema !== true) await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db).catch(() => undefined);
    await pgStore.close();
  }
}

/**
 * Done: no live message left (acknowledged and cancelled ones stay until the retention purge), no
 * undelivered send, and every successful payment booked.
 */
async function isSettled(db: Kysely<any>, queue: string): Promise<boolean> {
  const { rows } = await sql<{ messages: string; pending: string; unbooked: string }>`
    SELECT (SELECT count(*) FROM reliable_message WHERE status NOT IN ('ACKNOWLEDGED','CANCELLED')) AS messages,
           (SELECT count(*) FROM msg_event_state WHERE target = ${`KAFKA:rmq.${queue}`} AND status <> 'SENT') AS pending,
           (SELECT count(*) FROM payment p WHERE p.status = 'SUCCESS'
              AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.order_no = p.order_no)) AS unbooked`.execute(db);
  const r = rows[0]!;
  return Number(r.messages) === 0 && Number(r.pending) === 0 && Number(r.unbooked) === 0;
}

async function readReport(db: Kysely<any>, queue: string) {
  const payments = (await sql<{ order_no: string; status: string }>`SELECT order_no, status FROM payment ORDER BY order_no`.execute(db)).rows;
  const ledger = (
    await sql<{ voucher_no: string; order_no: string; amount: string }>`SELECT voucher_no, order_no, amount::text AS amount FROM ledger ORDER BY order_no`.execute(db)
  ).rows;
  const consumeLog = (
    await sql<{ message_id: string; send_count: number }>`SELECT message_id, send_count FROM reliable_message_consume_log ORDER BY message_id`.execute(db)
  ).rows;
  const remainingMessages = (
    await sql<{ message_id: string; status: string }>`
      SELECT message_id, status FROM reliable_message WHERE status NOT IN ('ACKNOWLEDGED','CANCELLED') ORDER BY message_id`.execute(db)
  ).rows;
  const events = (
    await sql<{ partition_key: string; status: string; state_version: string }>`
      SELECT partition_key, status, state_version::text AS state_version FROM msg_event_state
      WHERE target = ${`KAFKA:rmq.${queue}`} ORDER BY event_id`.execute(db)
  ).rows;
  return { payments, ledger, consumeLog, remainingMessages, events };
}
