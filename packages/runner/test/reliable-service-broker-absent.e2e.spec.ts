/**
 * Issue 36 item 4, on real PostgreSQL and a Kafka broker this suite owns: the broker is down before
 * `msgx run` starts and comes up only later. The runner starts anyway; a producer (producer.mjs,
 * HTTP only) prepares, confirms and cancels, and the check-back confirms and cancels over the
 * producer's checker (checker.mjs), all while the broker is away and for longer than the whole
 * resend schedule: nothing goes DEAD, no send is counted. Once the broker starts, a plain kafkajs
 * consumer (consumer.mjs) gets every confirmed message once and acknowledges it over HTTP.
 *
 * The broker is a second single node of `scripts/kafka` (its own MSGX_KAFKA_HOME and ports), never
 * the shared one on 9092. NOT RUN when PostgreSQL does not answer or no broker can be run here
 * (no java or mvn); a failure under MSGX_REQUIRE_SERVICES=1.
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
import { getMessage, metric, produce, startChecker, startConsumer, type Checker, type Consumer } from "./reliable-service/rm-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const suite = "reliable-message service started while its broker is away (PostgreSQL, a broker of its own)";

const tag = `rmabs_${process.pid}_${Date.now() % 100_000}`;
const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const pgGate = await gateService("PostgreSQL", suite, async () => void (await pgClient.connect()));
const toolGate = await gateOwnBroker(suite);
const available = pgGate.available && toolGate.available;

describe.skipIf(!available)(suite, () => {
  const dir = mkdtempSync(join(tmpdir(), "msgx-rm-absent-"));
  const consumers: Consumer[] = [];
  let broker: OwnBroker | undefined;
  let brokers = "";
  let runner: RunnerProcess | undefined;
  let checker: Checker | undefined;
  const q = flows.rmQueues(tag);
  const queue = q.checkBack;

  beforeAll(async () => {
    broker = await ownBroker(suite);
    brokers = broker.brokers;
    await pgClient.query(`CREATE SCHEMA ${tag}`);
    checker = await startChecker();
    const config = join(dir, "msgx.json");
    writeFileSync(config, JSON.stringify(flows.rmConfig(q, checker)));
    // The broker is not running: the runner must start without it.
    runner = await spawnTaggedRunner(config, PG_URL, tag, broker.brokers, dir);
  }, 1_200_000);

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await stopRunner(runner, suite);
    await checker?.stop();
    await removeSuiteState(broker, pgClient, tag, dir);
  }, 300_000);

  it("prepare, confirm, cancel and check-back work with the broker away; nothing DEAD; every confirmed message delivered once after it starts", async () => {
    const url = runner!.url;
    const id = (name: string) => `${queue}-${name}`;
    // Readiness names the missing broker; the API answers all the same.
    const readyz = await fetch(new URL("/readyz", url));
    expect(readyz.status).toBe(503);
    expect(JSON.stringify(await readyz.json())).toContain("kafka");

    // Checked back: the producer said nothing more about these two.
    await checker!.control({ verdicts: { [id("checked-paid")]: "confirm", [id("checked-abandoned")]: "cancel" } });
    // The producer's own calls: far from their check delay, so only the producer decides them.
    const own = { checkDelayMs: 600_000 };
    const t0 = Date.now();
    const answers = await produce(url, [
      { op: "prepare", id: id("saved-and-sent"), queue, body: "one call", confirm: true },
      { op: "prepare", id: id("confirmed"), queue, body: "paid", ...own },
      { op: "confirm", id: id("confirmed") },
      { op: "prepare", id: id("cancelled"), queue, body: "rolled back", ...own },
      { op: "cancel", id: id("cancelled") },
      { op: "prepare", id: id("checked-paid"), queue, body: "paid, producer silent" },
      { op: "prepare", id: id("checked-abandoned"), queue, body: "abandoned, producer silent" },
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 200, 201, 200, 201, 201]);
    const paid = await flows.waitMessage({ url } as flows.RmWorld, id("checked-paid"), (m) => m["status"] === "SENDING", "confirmed by check-back");
    expect(paid).toMatchObject({ dead: false, sendCount: 1 });
    expect(await flows.waitMessage({ url } as flows.RmWorld, id("checked-abandoned"), (m) => m["status"] === "CANCELLED", "cancelled by check-back")).toMatchObject({ sendCount: 0 });
    expect(await getMessage(url, id("cancelled"))).toMatchObject({ status: "CANCELLED", sendCount: 0 });

    // Longer than the whole resend schedule with the broker still away: no send counted, none DEAD.
    const delivered = [id("saved-and-sent"), id("confirmed"), id("checked-paid")];
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + flows.RESEND_SCHEDULE_MS + 2_000 - Date.now())));
    for (const m of delivered) expect(await getMessage(url, m)).toMatchObject({ status: "SENDING", dead: false, sendCount: 1 });

    await broker!.start();
    const reader = await startConsumer(`rmq.${queue}`, { brokers, group: `${tag}-after` }, { url, waitReady: false });
    consumers.push(reader);
    await reader.ready(180_000);
    for (const m of delivered) {
      const done = await flows.waitMessage({ url } as flows.RmWorld, m, (x) => x["status"] === "ACKNOWLEDGED", "acknowledged after the broker started", 180_000);
      expect(done).toMatchObject({ dead: false });
    }
    await eventually(async () => (delivered.every((m) => reader.of(m).some((r) => r.answer?.op === "ack")) ? true : undefined), 60_000, "the consumer's acknowledgements");
    for (const m of delivered) {
      expect(reader.of(m).filter((r) => r.effect), m).toHaveLength(1);
      // The first send the broker took is send 1: the outage counted none.
      expect(reader.of(m)[0]!.record.value?.["sendCount"], m).toBe(1);
    }
    expect(reader.of(id("cancelled"))).toEqual([]);
    expect(reader.of(id("checked-abandoned"))).toEqual([]);
    // Zero DEAD from the outage. The schedule starts at the broker's first acknowledgement, so a
    // consumer joining its group later than the whole schedule (a loaded machine, a fresh broker)
    // may see a message go DEAD legitimately: then it read all maxSends sends, each one taken.
    const deadAfterSchedule = delivered.filter((m) => reader.of(m).some((r) => r.record.value?.["sendCount"] === 3)).length;
    expect(await metric(url, "msgx_reliable_dead_letters_total")).toBeLessThanOrEqual(deadAfterSchedule);
    // And the runner is ready now that its broker answers.
    await eventually(async () => ((await fetch(new URL("/readyz", url))).status === 200 ? true : undefined), 120_000, "/readyz 200");
  }, 900_000);
});
