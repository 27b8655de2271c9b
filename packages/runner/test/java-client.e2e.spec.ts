/**
 * Issue 36 item 12 end to end: a Java client generated with openapi-generator from the runner's own
 * `GET /openapi.json`, and the two Java services of examples/java built on it, each its own process
 * with no msgx code (the generated client, the JDK's HTTP server, the plain Kafka client), against
 * the built `msgx run` on real PostgreSQL and Kafka:
 *
 * - the producer (Producer.java): prepare → its business commit → confirm; and its check-back
 *   endpoint settling the orders whose producer "crashed" before saying how they ended (committed:
 *   confirm; rolled back: cancel). A consumer with no msgx code (consumer.mjs, kafkajs) acks what
 *   arrives.
 * - the task owner (TaskOwner.java): its task events from Kafka → the handler of the handlerCode →
 *   the callback over the generated client (SUCCESS; FAILURE when the handler refuses).
 *
 * The Maven build (generate, compile) runs in beforeAll from the document the runner serves; its
 * time is printed (it is not asserted). `.ci/run` pre-fetches what it needs into ~/.m2.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gateService } from "@msgx/core/testing";
import kafkajs from "kafkajs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropKafkaRun, eventually, gatePgAndKafka, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { CHECKER_TOKEN, getMessage, RM_TOKEN, startConsumer, type Consumer } from "./reliable-service/rm-processes.js";
import { killOnExit, spawnCommand, stopScript, type ScriptProcess } from "./script-process.js";
import { getTask, taskApi, TASK_TOKEN } from "./task-service/task-processes.js";
import { freePort } from "./free-port.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const EXAMPLE = fileURLToPath(new URL("../../../examples/java/", import.meta.url));
const run = `javacli_${process.pid}_${Date.now() % 100_000}`;
const QUEUE = `${run}.orders`;
const OWNER = "LMS";
const TOPIC_PATTERN = `{owner}_TASK_EVENT_${run}`;
const OWNER_TOPIC = `${OWNER}_TASK_EVENT_${run}`;
const suite = "Java services on a client generated from /openapi.json, against msgx run on PostgreSQL and Kafka";

/** Java 17 and Maven, probed as any service: NOT RUN without them, a failure under MSGX_REQUIRE_SERVICES=1. */
const javaGate = await gateService("Java 17 and Maven", suite, async () => {
  for (const [cmd, args] of [["java", ["-version"]], ["mvn", ["-B", "-v"]]] as const) {
    const r = spawnSync(cmd, args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.error?.message ?? r.stderr}`);
  }
});
const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const available = javaGate.available && (await gatePgAndKafka(suite, pgClient, BROKERS));

const dirs: string[] = [];
let runner: RunnerProcess | undefined;
let producer: JavaProcess | undefined;
let owner: JavaProcess | undefined;
let consumer: Consumer | undefined;

interface JavaProcess extends ScriptProcess {
  send(line: Record<string, unknown>): void;
}

/** `mvn -B -q package` of examples/java on `spec`; rejects with Maven's output when it fails. */
function mavenBuild(spec: string): Promise<number> {
  const started = Date.now();
  const mvn = spawn("mvn", ["-B", "-q", "package", `-Dopenapi.spec=${spec}`], { cwd: EXAMPLE, stdio: ["ignore", "pipe", "pipe"] });
  killOnExit(mvn);
  let out = "";
  mvn.stdout.on("data", (d: Buffer) => (out += d.toString()));
  mvn.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => mvn.on("exit", (code) => (code === 0 ? resolve(Date.now() - started) : reject(new Error(`mvn package exited ${code}:\n${out.slice(-5_000)}`)))));
}

/** `java -cp <classes and dependencies> <main> …args`, its stdout read as JSON lines, commands written to its stdin. */
function spawnJava(main: string, args: readonly string[]): JavaProcess {
  const classpath = `${join(EXAMPLE, "target", "classes")}:${readFileSync(join(EXAMPLE, "target", "classpath.txt"), "utf8").trim()}`;
  const p = spawnCommand("java", ["-Xmx256m", "-cp", classpath, main, ...args], { stdin: true });
  return { ...p, send: (line) => void p.child.stdin!.write(`${JSON.stringify(line)}\n`) };
}

/** The first printed line that has `key`. */
function lineWith<T extends Record<string, any>>(p: JavaProcess, key: string, where: (l: T) => boolean = () => true): Promise<T> {
  return eventually(
    async () => {
      if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}:\n${p.output()}`);
      return p.lines.find((l): l is T => typeof l === "object" && l !== null && key in l && where(l as T));
    },
    90_000,
    `a line with ${key}`,
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${p.output().slice(-3_000)}`);
  });
}

beforeAll(async () => {
  if (!available) return;
  await pgClient.query(`CREATE SCHEMA ${run}`);
  const dir = mkdtempSync(join(tmpdir(), "msgx-java-"));
  dirs.push(dir);
  const checkerPort = await freePort();
  const config = join(dir, "msgx.json");
  writeFileSync(
    config,
    JSON.stringify({
      reliable: {
        token: RM_TOKEN,
        jobIntervalMs: 200,
        checkAfterMs: 500,
        checkIntervalMs: 500,
        maxCheckIntervalMs: 2_000,
        checkerTimeoutMs: 5_000,
        queues: { [QUEUE]: { checkerUrl: `http://127.0.0.1:${checkerPort}/check/${QUEUE}`, checkerToken: CHECKER_TOKEN } },
      },
      tasks: { enabled: true, token: TASK_TOKEN, routing: { mode: "topic-per-owner", topicPattern: TOPIC_PATTERN }, owners: [OWNER], jobIntervalMs: 200 },
    }),
  );
  runner = await spawnRunner(["-c", config, "--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], {
    MSGX_PG_SCHEMA: run,
    MSGX_KAFKA_MSG_TOPIC: `msg_${run}`,
    MSGX_KAFKA_SCHD_TOPIC: `schd_${run}`,
    MSGX_KAFKA_REF_TOPIC: `ref_${run}`,
  });

  const spec = join(dir, "openapi.json");
  const res = await fetch(new URL("/openapi.json", runner.url));
  expect(res.status).toBe(200);
  writeFileSync(spec, await res.text());
  const ms = await mavenBuild(spec);
  console.info(`[${suite}] mvn -B -q package (generate the client from /openapi.json, compile): ${ms} ms`);

  producer = spawnJava("io.msgx.examples.Producer", ["--queue", QUEUE, "--token", RM_TOKEN, "--checker-token", CHECKER_TOKEN, "--port", String(checkerPort)]);
  await lineWith(producer, "checker");
  producer.send({ runner: runner.url });

  // The owner's topic exists before its consumer subscribes (as the runner's owners do: ensureTaskTopics).
  const admin = new kafkajs.Kafka({ brokers: BROKERS.split(","), logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: OWNER_TOPIC, numPartitions: 3 }] }).finally(() => admin.disconnect());
  owner = spawnJava("io.msgx.examples.TaskOwner", ["--brokers", BROKERS, "--topic", OWNER_TOPIC, "--group", `${run}-lms`, "--runner", runner.url, "--token", TASK_TOKEN]);
  await lineWith(owner, "ready", (l) => l["partitions"] > 0);
}, 600_000);

afterAll(async () => {
  for (const p of [owner, producer]) if (p) await stopScript(p, 10_000);
  await consumer?.stop();
  await stopRunner(runner, suite);
  if (available) {
    await pgClient.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
    await dropKafkaRun(BROKERS, run).catch((e: unknown) => console.warn(`[${suite}] topics or groups of ${run} left behind:`, e));
  }
  await pgClient.end().catch(() => undefined);
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
}, 120_000);

const waitStatus = (id: string, status: string) =>
  eventually(async () => {
    const m = await getMessage(runner!.url, id).catch(() => undefined);
    return m?.["status"] === status ? m : undefined;
  }, 60_000, `${id} ${status}`);

describe.skipIf(!available)(suite, () => {
  it("the Java producer: prepare → commit → confirm delivers; a crash after the commit is confirmed by its check-back, one after a rollback cancelled", async () => {
    consumer = await startConsumer(`rmq.${QUEUE}`, { brokers: BROKERS, group: `${run}-acct` }, { url: runner!.url, waitReady: false });
    const [paid, crashed, rolledBack] = ["paid", "crashed-after-commit", "crashed-after-rollback"].map((s) => `${run}-${s}`) as [string, string, string];
    producer!.send({ order: paid, outcome: "commit" });
    producer!.send({ order: crashed, outcome: "commit-then-crash" });
    producer!.send({ order: rolledBack, outcome: "rollback-then-crash" });
    for (const id of [paid, crashed, rolledBack]) {
      const line = await lineWith(producer!, "order", (l) => l["order"] === id);
      expect(line["refused"], JSON.stringify(line)).toBeUndefined();
      expect(line["prepared"]).toMatchObject({ message: { messageId: id, status: "WAITING_CONFIRM" } });
    }
    expect((await lineWith(producer!, "order", (l) => l["order"] === paid))["confirmed"]).toBeDefined();

    await consumer.ready(90_000);
    await waitStatus(paid, "ACKNOWLEDGED");
    await waitStatus(crashed, "ACKNOWLEDGED");
    expect(await waitStatus(rolledBack, "CANCELLED")).toMatchObject({ sendCount: 0 });

    const checks = producer!.lines.filter((l): l is { checkBack: string; verdict: string } => typeof l === "object" && l !== null && "checkBack" in l);
    expect(new Set(checks.filter((c) => c.checkBack === crashed).map((c) => c.verdict))).toEqual(new Set(["confirm"]));
    expect(new Set(checks.filter((c) => c.checkBack === rolledBack).map((c) => c.verdict))).toEqual(new Set(["cancel"]));
    // `paid` may be asked about too, when its confirm comes later than checkAfterMs (a loaded machine): any answer is moot once confirmed.
    const delivered = (id: string) => consumer!.of(id).filter((r) => r.effect);
    expect(delivered(paid)).toHaveLength(1);
    expect(delivered(crashed)).toHaveLength(1);
    expect(consumer.of(rolledBack)).toEqual([]);
    const value = delivered(paid)[0]!.record.value!;
    expect(value["messageId"]).toBe(paid);
    expect(JSON.parse(String(value["body"])), "the body the Java producer sent, as JSON text").toEqual({ orderId: paid, amount: 42 });
  }, 300_000);

  it("the Java task owner: a task event from Kafka → its handlerCode's handler → callback over the client (SUCCESS finishes the task, FAILURE keeps it pending)", async () => {
    const ok = `${run}-move`;
    const refused = `${run}-refused`;
    for (const [id, handlerCode] of [[ok, "E2E_MOVE"], [refused, "E2E_REFUSE"]] as const) {
      const created = await taskApi(runner!.url, "POST", "/task/v1/tasks", { taskId: id, ownerService: OWNER, handlerCode, bizType: "TUBE_MOVE", bizId: `biz-${id}`, externalSystem: "ACS", dispatch: false });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect((await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/dispatched`, { externalTaskNo: `ACS-${id}` })).status).toBe(200);
      const finished = await taskApi(runner!.url, "POST", `/task/v1/tasks/${id}/feedback`, { externalEventId: `${id}-fin`, status: "FINISHED" });
      expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    }
    const done = await eventually(async () => {
      const t = await getTask(runner!.url, ok);
      return t?.["status"] === "FINISHED" ? t : undefined;
    }, 90_000, `${ok} FINISHED after the owner's callback`);
    const handled = await lineWith(owner!, "taskId", (l) => l["taskId"] === ok);
    expect(handled).toMatchObject({ eventType: "TASK_FINISHED", handlerCode: "E2E_MOVE", result: "SUCCESS", eventId: done["lastEventId"] });
    expect(handled["refused"]).toBeUndefined();

    const failed = await lineWith(owner!, "taskId", (l) => l["taskId"] === refused);
    expect(failed).toMatchObject({ eventType: "TASK_FINISHED", handlerCode: "E2E_REFUSE", result: "FAILURE" });
    const pending = await eventually(async () => {
      const t = await getTask(runner!.url, refused);
      return t?.["callbackError"] ? t : undefined;
    }, 60_000, `${refused}'s FAILURE callback recorded`);
    expect(pending).toMatchObject({ status: "FINISHED_PENDING_CALLBACK" });
    expect(String(pending["callbackError"])).toContain("the business refuses");
  }, 300_000);
});
