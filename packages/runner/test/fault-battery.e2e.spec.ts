/**
 * The fault battery (docs/reliability.md): the built `msgx run` binary on real PostgreSQL, MariaDB
 * and Kafka, fed an airport day through the shared mailbox while it is killed with SIGKILL at
 * random moments and at every named failpoint, and while MariaDB, PostgreSQL and Kafka are each
 * stopped and started again once. A supervisor restarts the runner whenever it is gone (as systemd
 * would). At the end one runner drains everything; the Kafka topics and the database are then
 * compared with a model of the same input (core's pump over the in-memory fakes) and every
 * difference is counted: lost, duplicated effects, reorders, payload or status mismatches, DEAD
 * messages or events, leftover backfill debt.
 *
 * CI runs the short version (29 kills, outages of 3 s, ~1.5 min). The full local version (103
 * kills, outages of 17 s — longer than the 15 s retry budget — ~6 min):
 *   MSGX_TEST_FAULT_FULL=1 npx vitest run --project int packages/runner/test/fault-battery.e2e
 * Knobs: MSGX_TEST_FAULT_UPDATES, MSGX_TEST_FAULT_RANDOM_KILLS, MSGX_TEST_FAULT_FAILPOINT_KILLS (per failpoint),
 * MSGX_TEST_FAULT_OUTAGE_MS, MSGX_TEST_FAULT_SEED.
 */
import { existsSync } from "node:fs";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { quoteMailboxNames } from "@msgx/adapters-mysql";
import { createPgStores } from "@msgx/adapters-pg";
import type { FlightState } from "@msgx/core";
import { gateService } from "@msgx/core/testing";
import { airportDay } from "../src/demo/airport-day.js";
import { insertMailboxRows, mysqlPool, readTopics, rng, sleep, URLS, type MysqlPool } from "../../../bench/fault/infra.js";
import { probeKafka } from "./runner-process.js";
import { checkState, CLEAN_RUN, checkTopics, modelOutcome, statusKey } from "../../../bench/fault/model.js";
import { CLI, createMailbox, dropRun, realRun, spawnRealRunner, waitQuiet, type RunnerChild } from "../../../bench/fault/runner.js";
import { gateControl, outage, startService, type OutageTimes, type Service } from "../../../bench/fault/services.js";

const FULL = process.env["MSGX_TEST_FAULT_FULL"] === "1";
const num = (name: string, short: number, full: number) => Number(process.env[name] ?? (FULL ? full : short));
const CFG = {
  updates: num("MSGX_TEST_FAULT_UPDATES", 900, 3_000),
  randomKills: num("MSGX_TEST_FAULT_RANDOM_KILLS", 14, 60),
  failpointKills: num("MSGX_TEST_FAULT_FAILPOINT_KILLS", 3, 10),
  // Full: longer than the retry budget (1 + 2 + 4 + 8 s), so an outage spending attempts would show.
  outageMs: num("MSGX_TEST_FAULT_OUTAGE_MS", 3_000, 17_000),
  seed: num("MSGX_TEST_FAULT_SEED", 20261129, 20261129),
};
const FAILPOINTS = ["pump.before-commit", "pump.after-commit", "dispatch.after-send", "schd.after-send"] as const;
const RUNNER_ENV = {
  MSGX_PIPELINE_MAX_RUN: "50",
  MSGX_PIPELINE_POLL_INTERVAL_MS: "100",
  MSGX_SCHD_FLUSH_PERIOD_MS: "200",
  MSGX_JOBS_BACKFILL_SWEEP_MS: "1000",
  // A runner killed with SIGKILL keeps its lease until it lapses: the next one leads after ~1.5 s.
  MSGX_PG_LEASE_TTL_MS: "1500",
};

const suite = "fault battery (kill -9, failpoints, outages) on PostgreSQL, MariaDB and Kafka";
/** A short-lived client per use: PostgreSQL is restarted in the middle of the battery. */
async function withPg<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: URLS.pg, connectionTimeoutMillis: 5_000 });
  c.on("error", () => undefined);
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}
const gates = [
  await gateService("PostgreSQL", suite, () => withPg(async (c) => void (await c.query("SELECT 1")))),
  await gateService("MariaDB", suite, async () => void (await (await mysql.createConnection({ uri: URLS.mysql, connectTimeout: 3_000 })).end())),
  await gateService("Kafka", suite, () => probeKafka(URLS.brokers.split(","))),
  await gateControl(["postgres", "mariadb", "kafka"], suite),
];
const available = gates.every((g) => g.available);
const run = realRun(`fb_${process.pid}_${Date.now() % 100_000}`);
afterAll(async () => {
  if (available) {
    // Whatever happened, every service is left running.
    for (const s of ["postgres", "mariadb", "kafka"] as const) await startService(s).catch((e: unknown) => console.error(`[fault battery] could not start ${s}:`, e));
    await withPg((c) => c.query(`DROP SCHEMA IF EXISTS ${run.schema} CASCADE`)).catch(() => undefined);
    await dropRun(run).catch(() => undefined);
  }
}, 300_000);

type Step = { kind: "random" } | { kind: "failpoint"; point: (typeof FAILPOINTS)[number]; nth: number } | { kind: "outage"; service: Service };

interface StepLog {
  readonly step: string;
  readonly outcome: string;
  readonly ms: number;
}

/** The plan: random kills and failpoint kills shuffled, the three outages at 1/4, 1/2 and 3/4. */
function plan(random: () => number): Step[] {
  const kills: Step[] = [
    ...Array.from({ length: CFG.randomKills }, () => ({ kind: "random" }) as const),
    ...FAILPOINTS.flatMap((point) => Array.from({ length: CFG.failpointKills }, () => ({ kind: "failpoint", point, nth: 1 + Math.floor(random() * 3) }) as const)),
  ];
  for (let i = kills.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kills[i], kills[j]] = [kills[j]!, kills[i]!];
  }
  const at = (f: number) => Math.round(kills.length * f);
  const steps: Step[] = [...kills];
  steps.splice(at(0.75), 0, { kind: "outage", service: "kafka" });
  steps.splice(at(0.5), 0, { kind: "outage", service: "postgres" });
  steps.splice(at(0.25), 0, { kind: "outage", service: "mariadb" });
  return steps;
}

/**
 * Inserts the day with explicit ids 1..N (a retried insert is then idempotent), paced so the last
 * rows go in near the end of the plan: the pause before each chunk is the time the remaining
 * steps are expected to take (from the average step so far) over the chunks left. So every step,
 * the failpoint steps included, finds fresh work, and inserts go on through every outage.
 */
function feed(pool: MysqlPool, raws: readonly string[], progress: { fed: number; retries: number; stepsDone: number; steps: number; doneAt: number }): Promise<void> {
  const chunk = 2;
  const started = Date.now();
  return (async () => {
    for (let i = 0; i < raws.length; i += chunk) {
      const part = raws.slice(i, i + chunk);
      const ids = part.map((_, j) => i + j + 1);
      for (;;) {
        try {
          await insertMailboxRows(pool, run.names, part, { ids, chunk });
          break;
        } catch (e) {
          // A duplicate key: the insert committed before the connection broke.
          if ((e as { errno?: number }).errno === 1062) break;
          progress.retries += 1;
          await sleep(250);
        }
      }
      progress.fed = i + part.length;
      const perStep = progress.stepsDone > 0 ? (Date.now() - started) / progress.stepsDone : 2_500;
      const remainingMs = Math.max(0, progress.steps - progress.stepsDone - 0.5) * perStep;
      await sleep(Math.min(1_000, remainingMs / Math.max(1, (raws.length - progress.fed) / chunk)));
    }
    progress.doneAt = Date.now();
  })();
}

describe.skipIf(!available)(suite, () => {
  it(
    `loses, duplicates and reorders nothing through ${CFG.randomKills} random kills, ${CFG.failpointKills} per failpoint and three outages`,
    async () => {
      expect(existsSync(CLI), `${CLI} missing: build first`).toBe(true);
      const started = Date.now();
      const random = rng(CFG.seed);
      const raws = airportDay({ flights: 40, updates: CFG.updates, seed: CFG.seed % 1000 }).map((m) => m.xml);
      const expected = await modelOutcome(raws, { maxRun: 50 });

      await withPg((c) => c.query(`CREATE SCHEMA ${run.schema}`));
      const pool = mysqlPool(2);
      await createMailbox(pool, run);
      const steps = plan(random);
      const progress = { fed: 0, retries: 0, stepsDone: 0, steps: steps.length, doneAt: 0 };
      const feeding = feed(pool, raws, progress);

      /** Starts a runner, retrying while a dependency is down (buildParts refuses to start then). */
      const launch = async (env: NodeJS.ProcessEnv = {}): Promise<RunnerChild> => {
        const deadline = Date.now() + 180_000;
        for (;;) {
          try {
            return await spawnRealRunner(run, { ...RUNNER_ENV, ...env }, 60_000);
          } catch (e) {
            // Exit 2 is a configuration error: retrying cannot help.
            if (Date.now() > deadline || String(e).includes("exited (2)")) throw e;
            await sleep(500);
          }
        }
      };
      const kill = async (r: RunnerChild) => {
        r.child.kill("SIGKILL");
        await r.exited;
      };

      const log: StepLog[] = [];
      const outages: OutageTimes[] = [];
      let kills = 0;
      let failpointsReached = 0;
      let restartsAfterExit = 0;
      for (const step of steps) {
        const t0 = Date.now();
        if (step.kind === "random") {
          const r = await launch();
          const life = 200 + Math.floor(random() * 1_300);
          await sleep(life);
          await kill(r);
          kills += 1;
          progress.stepsDone += 1;
          log.push({ step: "random kill", outcome: `after ${life} ms`, ms: Date.now() - t0 });
        } else if (step.kind === "failpoint") {
          const r = await launch({ MSGX_FAILPOINT: `${step.point}@${step.nth}` });
          const code = await Promise.race([r.exited, sleep(15_000).then(() => "timeout" as const)]);
          if (code === "timeout") await kill(r);
          else failpointsReached += code === "SIGKILL" ? 1 : 0;
          kills += 1;
          progress.stepsDone += 1;
          log.push({ step: `failpoint ${step.point}@${step.nth}`, outcome: code === "timeout" ? "not reached in 15 s: killed" : `exit ${code}`, ms: Date.now() - t0 });
        } else {
          let r = await launch();
          await sleep(700);
          const times = await outage(step.service, CFG.outageMs);
          outages.push(times);
          // PostgreSQL gone ends leadership: the runner exits and the supervisor starts another.
          const exitedCode = await Promise.race([r.exited, sleep(300).then(() => undefined)]);
          if (exitedCode !== undefined) {
            restartsAfterExit += 1;
            r = await launch();
          }
          await sleep(2_500);
          await kill(r);
          kills += 1;
          progress.stepsDone += 1;
          log.push({ step: `outage ${step.service}`, outcome: `down ${times.downMs} ms (stop ${times.stopMs} ms, start ${times.startMs} ms)${exitedCode !== undefined ? `; runner exited (${exitedCode}), restarted` : "; runner rode it out"}`, ms: Date.now() - t0 });
        }
      }
      await feeding;
      const fedBy = Math.round((progress.doneAt - started) / 1000);

      // One runner drains everything, backfill debt included (a todo left by a crash after
      // commit is due 30 s later; the sweep runs every second here).
      const final = await launch();
      const status = await waitQuiet(final.url, raws.length, 180_000, { debt: true });
      final.child.kill("SIGTERM");
      expect(await final.exited).toBe(0);

      const records = await readTopics([run.msgTopic, run.schdTopic]);
      const topics = checkTopics(
        expected,
        records.filter((r) => r.topic === run.msgTopic),
        records.filter((r) => r.topic === run.schdTopic),
      );
      const statuses = new Map<number, string>();
      const { rows, events, todos } = await withPg(async (c) => ({
        rows: (await c.query<{ msg_id: string; status: string; error_class: string | null }>(`SELECT msg_id, status, error_class FROM ${run.schema}.proc_state`)).rows,
        events: (await c.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM ${run.schema}.msg_event_state GROUP BY status`)).rows,
        todos: Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${run.schema}.backfill_todo`)).rows[0]!.n),
      }));
      for (const r of rows) statuses.set(Number(r.msg_id), statusKey(r.status, r.error_class));
      const eventCount = (s: string) => Number(events.find((e) => e.status === s)?.n ?? 0);
      const { table, columns } = quoteMailboxNames(run.names).inbound;
      const [unprocessed] = await pool.query(`SELECT count(*) AS n FROM ${table} WHERE ${columns.dateProcessed} IS NULL`);
      const store = await createPgStores({ connectionString: URLS.pg, schema: run.schema, migrate: false, max: 1 });
      let flights: readonly FlightState[];
      try {
        flights = await store.flights.list({ limit: 1000, includeDeleted: true });
      } finally {
        await store.close();
      }
      await pool.end();
      const state = checkState(expected, {
        statuses,
        eventsDead: eventCount("DEAD"),
        eventsPending: eventCount("PENDING"),
        backfillTodos: todos,
        unbackfilledRows: Number((unprocessed as { n: number }[])[0]!.n),
        flights,
      });

      const counts = { ...topics, ...state };
      const seconds = Math.round((Date.now() - started) / 1000);
      for (const l of log) console.info(`[fault battery] ${l.step}: ${l.outcome} (${l.ms} ms)`);
      console.info(
        `[fault battery] ${seconds} s; ${raws.length} messages (${JSON.stringify(status.byStatus)}), fed with ${progress.retries} insert retries (last row at ${fedBy} s); ` +
          `${kills} kills (${CFG.randomKills} random, ${FAILPOINTS.length * CFG.failpointKills} at failpoints, ${failpointsReached} reached, 3 after outages), ${restartsAfterExit} restarts after the runner exited by itself`,
      );
      console.info(
        `[fault battery] COUNTS lost=${counts.lost} duplicatedEffects=${counts.duplicatedEffects} reorders=${counts.reorders} payloadMismatches=${counts.payloadMismatches} ` +
          `schdReorders=${counts.schdReorders} schdMismatches=${counts.schdMismatches} statusMismatches=${counts.statusMismatches} deadFromFaults=${counts.deadFromFaults} ` +
          `messagesMissing=${counts.messagesMissing} eventsDead=${counts.eventsDead} eventsPending=${counts.eventsPending} backfillDebt=${counts.backfillDebt} unbackfilledRows=${counts.unbackfilledRows} ` +
          `flightMismatches=${counts.flightMismatches} | msgRecords=${counts.msgRecords} firstDeliveries=${counts.firstDeliveries} resends=${counts.resends} schdRecords=${counts.schdRecords}`,
      );

      const planned = CFG.randomKills + FAILPOINTS.length * CFG.failpointKills + 3;
      expect(kills).toBe(planned);
      if (!process.env["MSGX_TEST_FAULT_RANDOM_KILLS"] && !process.env["MSGX_TEST_FAULT_FAILPOINT_KILLS"]) expect(kills).toBeGreaterThanOrEqual(20);
      expect(outages.map((o) => o.service).sort()).toEqual(["kafka", "mariadb", "postgres"]);
      expect(counts).toMatchObject(CLEAN_RUN);
      expect(counts.firstDeliveries).toBe([...expected.msgByKey.values()].reduce((a, l) => a + l.length, 0));
    },
    FULL ? 3_600_000 : 420_000,
  );
});
