/**
 * Issue 36 item 6, the seed's exception row "broker slow or down mid-run", on real PostgreSQL and a
 * Kafka broker this suite owns. A producer (producer.mjs, HTTP only) keeps preparing, confirming
 * and cancelling, and a plain kafkajs consumer (consumer.mjs) keeps acknowledging over HTTP, while
 * the broker is (a) frozen with SIGSTOP (slow: the runner's sends time out) and thawed with SIGCONT,
 * then (b) stopped and started again — both in the middle of that traffic. Nothing is lost (every
 * confirmed message delivered and acknowledged), nothing goes DEAD, and the consumer never gets a
 * message that was not confirmed.
 *
 * The broker is a second single node of `scripts/kafka` (reliable-service/own-broker.ts), never the
 * shared one, so this suite needs no exclusive project. NOT RUN when PostgreSQL does not answer or
 * no broker can be run here (no java or mvn); a failure under MSGX_REQUIRE_SERVICES=1.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gateService } from "@msgx/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, stopRunner, type RunnerProcess } from "./runner-process.js";
import * as flows from "./reliable-service/rm-flows.js";
import { gateOwnBroker, ownBroker, removeSuiteState, spawnTaggedRunner, type OwnBroker } from "./reliable-service/own-broker.js";
import { getMessage, metric, produce, RM_TOKEN, startConsumer, type Consumer, type ProducerAnswer } from "./reliable-service/rm-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const suite = "reliable-message service with its broker slow (SIGSTOP) and then down mid-run (PostgreSQL, a broker of its own)";
/** How long the broker stays frozen, and stopped: each longer than a send's timeout would need to be noticed, short enough for one run. */
const FROZEN_MS = 8_000;
const DOWN_MS = 8_000;

const tag = `rmmid_${process.pid}_${Date.now() % 100_000}`;
const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const pgGate = await gateService("PostgreSQL", suite, async () => void (await pgClient.connect()));
const toolGate = await gateOwnBroker(suite);
const available = pgGate.available && toolGate.available;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One producer run: its steps' answers and when it ran. */
interface Batch {
  readonly start: number;
  readonly end: number;
  readonly answers: readonly ProducerAnswer[];
}

describe.skipIf(!available)(suite, () => {
  const dir = mkdtempSync(join(tmpdir(), "msgx-rm-mid-run-"));
  const queue = `${tag}.mid-run`;
  let broker: OwnBroker | undefined;
  let runner: RunnerProcess | undefined;
  let reader: Consumer | undefined;
  let frozenPid: number | undefined;

  beforeAll(async () => {
    broker = await ownBroker(suite);
    await broker.start();
    await pgClient.query(`CREATE SCHEMA ${tag}`);
    const config = join(dir, "msgx.json");
    // A resend schedule (10 s, 20 s, then 40 s; DEAD only after six broker-acknowledged sends, 190 s
    // after the first) that a consumer rejoining its group after a broker restart outlives on a
    // loaded machine too: kafkajs' consumer retries with a backoff up to 30 s, and a budget of 50 s
    // (three sends) once ran out while it was still rejoining. A DEAD here would be the outage's doing.
    writeFileSync(config, JSON.stringify({ reliable: { token: RM_TOKEN, jobIntervalMs: 200, resendWaitsMs: [10_000, 20_000, 40_000], maxSends: 6, outageRecheckMs: 500 } }));
    runner = await spawnTaggedRunner(config, PG_URL, tag, broker.brokers, dir);
  }, 1_200_000);

  afterAll(async () => {
    if (frozenPid !== undefined) process.kill(frozenPid, "SIGCONT");
    await reader?.stop();
    await stopRunner(runner, suite);
    await removeSuiteState(broker, pgClient, tag, dir);
  }, 300_000);

  it("prepares, confirms, cancels and acks go on while the broker is frozen and while it restarts: nothing lost, nothing DEAD, nothing unconfirmed delivered", async () => {
    const url = runner!.url;
    // The service creates the queue's topic on its first send; the consumer reads once it exists.
    reader = await startConsumer(`rmq.${queue}`, { brokers: broker!.brokers, group: `${tag}-consumer` }, { url, waitReady: false });
    expect((await produce(url, [{ op: "prepare", id: `${queue}-warm-up`, queue, body: "warm-up", confirm: true }]))[0]!.status).toBe(201);
    await reader.ready(120_000);
    await flows.waitMessage({ url } as flows.RmWorld, `${queue}-warm-up`, (m) => m["status"] === "ACKNOWLEDGED", "warm-up acknowledged", 120_000);

    // The producer: four messages per run, most confirmed, every fourth cancelled, every fifth saved and sent in one call.
    const batches: Batch[] = [];
    let stopTraffic = false;
    const traffic = (async () => {
      let n = 0;
      while (!stopTraffic) {
        const steps: Record<string, unknown>[] = [];
        for (let i = 0; i < 4; i++) {
          const id = `${queue}-${++n}`;
          const body = `order ${n}`;
          if (n % 5 === 0) steps.push({ op: "prepare", id, queue, body, confirm: true });
          else steps.push({ op: "prepare", id, queue, body, checkDelayMs: 600_000 }, { op: n % 4 === 0 ? "cancel" : "confirm", id });
        }
        const start = Date.now();
        const answers = await produce(url, steps);
        batches.push({ start, end: Date.now(), answers });
      }
    })();
    const batchesAfter = (count: number, what: string) => {
      const target = batches.length + count;
      return eventually(async () => (batches.length >= target ? true : undefined), 60_000, what);
    };

    await batchesAfter(2, "traffic before the freeze");
    // (a) Slow: the broker answers nothing; the runner's sends time out.
    const frozenAt = Date.now();
    frozenPid = broker!.pid();
    process.kill(frozenPid, "SIGSTOP");
    await sleep(FROZEN_MS);
    process.kill(frozenPid, "SIGCONT");
    frozenPid = undefined;
    const thawedAt = Date.now();
    await batchesAfter(2, "traffic after the thaw");
    // (b) Down: stopped, then started again.
    const stoppingAt = Date.now();
    await broker!.stop();
    const stoppedAt = Date.now();
    await sleep(DOWN_MS);
    await broker!.start();
    const startedAt = Date.now();
    await batchesAfter(2, "traffic after the restart");
    stopTraffic = true;
    await traffic;

    // The producer was answered all along: the outbox needs only PostgreSQL.
    const answers = batches.flatMap((b) => b.answers);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 201)).toEqual([]);
    const within = (from: number, to: number) => batches.filter((b) => b.start >= from && b.end <= to).length;
    expect(within(frozenAt, thawedAt), "producer runs while the broker was frozen").toBeGreaterThan(0);
    expect(within(stoppedAt, startedAt), "producer runs while the broker was stopped").toBeGreaterThan(0);
    const confirmed = answers.filter((a) => (a.op === "prepare" && a.status === 201 && a.body.message.status === "SENDING") || (a.op === "confirm" && a.body.applied === true)).map((a) => a.id);
    const cancelled = answers.filter((a) => a.op === "cancel" && a.body.applied === true).map((a) => a.id);
    expect(confirmed.length).toBeGreaterThan(0);
    expect(cancelled.length).toBeGreaterThan(0);

    // Nothing lost: every confirmed message acknowledged by the consumer, each handled once.
    const t0 = Date.now();
    // Each waits past the schedule's DEAD horizon (190 s): a message that cannot be acknowledged shows as DEAD, not as a timeout.
    for (const id of confirmed) await flows.waitMessage({ url } as flows.RmWorld, id, (m) => m["status"] === "ACKNOWLEDGED" || m["phase"] === "DEAD", "acknowledged after the outages", 240_000);
    for (const id of confirmed) expect(await getMessage(url, id), id).toMatchObject({ status: "ACKNOWLEDGED" });
    await flows.waitReportedAcks([reader], confirmed, 60_000);
    for (const id of confirmed) expect(reader.of(id).filter((r) => r.effect), id).toHaveLength(1);
    // Nothing unconfirmed delivered; nothing DEAD.
    const known = new Set([...confirmed, `${queue}-warm-up`]);
    expect(reader.records().map((r) => r.record.value?.["messageId"] as string).filter((id) => !known.has(id))).toEqual([]);
    for (const id of cancelled) expect(await getMessage(url, id), id).toMatchObject({ status: "CANCELLED", sendCount: 0 });
    expect(await metric(url, "msgx_reliable_dead_letters_total")).toBe(0);

    const sends = confirmed.map((id) => Math.max(...reader!.of(id).map((r) => Number(r.record.value?.["sendCount"] ?? 0))));
    console.info(
      `[${suite}] ${confirmed.length} confirmed, ${cancelled.length} cancelled in ${batches.length} producer runs; ` +
        `frozen ${thawedAt - frozenAt} ms, stop ${stoppedAt - stoppingAt} ms, down ${startedAt - stoppedAt} ms (start included); ` +
        `all acknowledged ${Date.now() - t0} ms after the traffic ended; highest send number read ${Math.max(...sends)}`,
    );
  }, 600_000);
});
