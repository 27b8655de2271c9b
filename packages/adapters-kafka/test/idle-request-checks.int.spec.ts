/**
 * `stopIdleRequestChecks` on the installed kafkajs and a real broker: an idle client's connections
 * keep a request-queue check scheduled forever without it (kafkajs issues #1556, #1704) and none
 * with it; and a producer whose requests queue behind each other (one in flight) still sends them
 * all.
 */
import { Kafka, logLevel, type Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopIdleRequestChecks } from "../src/idle-request-checks.js";
import { onEachCluster } from "../src/kafkajs-clusters.js";
import { kafkaAvailability } from "./kafka-available.js";
import { createTopics, uniqueTopic } from "./kafka-test-kit.js";

const kafka = await kafkaAvailability("@msgx/adapters-kafka idle request checks suite");

/** What the test reads of kafkajs' private request queues. */
interface QueueView {
  readonly pending: readonly unknown[];
  readonly throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}
interface ClusterView {
  readonly brokerPool: { readonly seedBroker?: BrokerView; readonly brokers: Readonly<Record<string, BrokerView>> };
}
interface BrokerView {
  readonly connectionPool: { readonly pool: readonly { readonly requestQueue: QueueView }[] };
}

describe.skipIf(!kafka.available)("idle request checks, on a real broker", () => {
  const topic = uniqueTopic("idle-checks");
  const admin = new Kafka({ clientId: "msgx-it-idle-admin", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  const producers: Producer[] = [];
  beforeAll(async () => {
    await admin.connect();
    await createTopics(admin, [topic], 1);
  });
  afterAll(async () => {
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  /** A producer (quiet or as kafkajs has it) that sent one record, and the request queues of every connection its cluster built. */
  async function producer(quiet: boolean): Promise<{ producer: Producer; queues: () => QueueView[]; checks: () => number; queued: () => number }> {
    const client = new Kafka({ clientId: "msgx-it-idle", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING });
    if (quiet) expect(stopIdleRequestChecks(client)).toBe(true);
    const clusters: ClusterView[] = [];
    expect(onEachCluster(client, (c) => clusters.push(c as ClusterView))).toBe(true);
    const p = client.producer({ maxInFlightRequests: 1 });
    producers.push(p);
    await p.connect();
    // One record first: the partition leader's connections exist from then on.
    await p.send({ topic, acks: -1, messages: [{ key: "k", value: "warm-up" }] });
    const queues = () =>
      clusters.flatMap((c) => [c.brokerPool.seedBroker, ...Object.values(c.brokerPool.brokers)]).flatMap((b) => (b === undefined ? [] : b.connectionPool.pool.map((x) => x.requestQueue)));
    // Counts the checks from here on (each call the queue makes of its own method), and the
    // schedulings that found a request held back (a push that could not send at once).
    let checks = 0;
    let queued = 0;
    for (const q of queues()) {
      const check = q.checkPendingRequests;
      q.checkPendingRequests = function (this: QueueView) {
        checks += 1;
        check.call(this);
      };
      const schedule = q.scheduleCheckPendingRequests;
      q.scheduleCheckPendingRequests = function (this: QueueView) {
        if (this.pending.length > 0) queued += 1;
        schedule.call(this);
      };
    }
    return { producer: p, queues, checks: () => checks, queued: () => queued };
  }

  /** Resolves once `done` holds, checked every 10 ms (the event it waits for, not a time). */
  async function until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise((r) => setTimeout(r, 10));
  }

  it("as kafkajs has it, an idle connection checks its queue again and again; quiet, it stops once nothing waits", async () => {
    const loud = await producer(false);
    const after = loud.checks();
    // The endless 1 ms loop: checks go on with nothing to send.
    await until(() => loud.checks() >= after + 50);
    expect(loud.queues().some((q) => q.throttleCheckTimeoutId !== null && q.throttleCheckTimeoutId !== undefined)).toBe(true);

    const quiet = await producer(true);
    // A check scheduled before the answer may still run once; then none stays scheduled.
    await until(() => quiet.queues().every((q) => q.throttleCheckTimeoutId === null || q.throttleCheckTimeoutId === undefined));
    const settled = quiet.checks();
    await until(() => loud.checks() >= after + 150); // the loud client's loop as the clock: it has run 100 more times
    expect(quiet.checks()).toBe(settled);
    expect(quiet.queues().every((q) => q.pending.length === 0)).toBe(true);
  });

  it("still sends every request that queued behind another (one in flight)", async () => {
    const quiet = await producer(true);
    const sends = Array.from({ length: 30 }, (_, i) => quiet.producer.send({ topic, acks: -1, messages: [{ key: "queued", value: String(i) }] }));
    const answers = await Promise.all(sends);
    expect(quiet.queued()).toBeGreaterThan(0);
    expect(new Set(answers.map((a) => a[0]!.baseOffset)).size).toBe(30);
    await until(() => quiet.queues().every((q) => q.throttleCheckTimeoutId === null || q.throttleCheckTimeoutId === undefined));
  });
});
