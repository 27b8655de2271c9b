/**
 * The reliable-message service's world on real PostgreSQL and Kafka, for a suite file: the built
 * `msgx run` on a schema and topics of this run, the producer's checker, and the hooks that start
 * and clean them. Each suite file gets its own runner, so the broker-outage flow (which stops the
 * shared broker) can run in the exclusive project while the others run beside other suites.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { dropKafkaRun, gatePgAndKafka, spawnRunner, stopRunner, type RunnerProcess } from "../runner-process.js";
import * as flows from "./rm-flows.js";
import { startChecker, type Checker, type Consumer } from "./rm-processes.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
export const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";

export interface PgKafkaRmWorld {
  /** PostgreSQL and Kafka answer: the suite runs (else it is NOT RUN, said by the gates). */
  readonly available: boolean;
  world(): flows.RmWorld;
}

/**
 * Gates on PostgreSQL and Kafka and registers the suite's hooks; `beforeEnd` runs first in
 * afterAll; `reliable` is merged over `rmConfig`'s reliable section.
 */
export async function pgKafkaRmWorld(suite: string, tag: string, beforeEnd: () => Promise<void> = async () => undefined, reliable: Record<string, unknown> = {}): Promise<PgKafkaRmWorld> {
  const run = `${tag}_${process.pid}_${Date.now() % 100_000}`;
  const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
  const available = await gatePgAndKafka(suite, pgClient, BROKERS);
  const dirs: string[] = [];
  let runner: RunnerProcess | undefined;
  let checker: Checker | undefined;
  const consumers: Consumer[] = [];
  const q = flows.rmQueues(run);

  beforeAll(async () => {
    if (!available) return;
    await pgClient.query(`CREATE SCHEMA ${run}`);
    checker = await startChecker();
    const dir = mkdtempSync(join(tmpdir(), "msgx-rm-svc-"));
    dirs.push(dir);
    const config = join(dir, "msgx.json");
    const base = flows.rmConfig(q, checker);
    writeFileSync(config, JSON.stringify({ ...base, reliable: { ...(base["reliable"] as object), ...reliable } }));
    runner = await spawnRunner(["-c", config, "--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], {
      MSGX_PG_SCHEMA: run,
      MSGX_KAFKA_MSG_TOPIC: `msg_${run}`,
      MSGX_KAFKA_SCHD_TOPIC: `schd_${run}`,
      MSGX_KAFKA_REF_TOPIC: `ref_${run}`,
    });
  }, 120_000);
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });
  afterAll(async () => {
    await beforeEnd();
    await stopRunner(runner, suite);
    await checker?.stop();
    if (available) {
      await pgClient.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
      await dropKafkaRun(BROKERS, run).catch((e: unknown) => console.warn(`[${suite}] topics of ${run} left behind:`, e));
    }
    await pgClient.end().catch(() => undefined);
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  }, 300_000);

  return {
    available,
    world: () => ({ url: runner!.url, checker: checker!, q, consumers, source: (_topic, group) => ({ brokers: BROKERS, group: `${run}-${group}` }) }),
  };
}
