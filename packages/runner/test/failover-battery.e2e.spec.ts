/**
 * The failover battery (issue 24, docs/ha.md): two built `msgx run` binaries (a supervisor starts
 * again any that exits, as systemd would; a 2 s lease) on the PostgreSQL HA pair (`scripts/pg-ha`,
 * a multi-host URL) and the three-broker Kafka cluster (`scripts/kafka cluster`, topics RF 3 /
 * min ISR 2), fed an airport day through a MariaDB mailbox while, one after the other and with
 * traffic flowing:
 *   1. the broker leading the msg topic's partition 0 is killed with SIGKILL, then restarted;
 *   2. the PostgreSQL primary is killed with SIGKILL and the standby promoted (the old primary never
 *      comes back as a second primary);
 *   3. the leading runner is frozen (SIGSTOP) beyond its lease and woken (SIGCONT) after the standby
 *      took over: it exits 3 and the supervisor starts it again as a standby.
 * Each fault's resume time is read afterwards from the database: from the fault to the first record
 * the new partition leader acknowledged (Kafka) or the first message applied after it (PostgreSQL,
 * the frozen leader). Then one runner drains everything and the fault battery's checker compares the
 * topics and the database with the model: lost, duplicated effects, reorders, DEAD from faults,
 * backfill debt, all 0.
 *
 * It owns the cluster and the HA pair while it runs (vitest.config.ts `exclusive`): the HA pair is
 * wiped and started fresh, the cluster started if it is not running (MSGX_REQUIRE_SERVICES=1 or
 * MSGX_TEST_KAFKA_CLUSTER=1) and stopped after if it started it; NOT RUN otherwise.
 * CI runs the short version; locally, more messages and each fault twice:
 *   MSGX_TEST_FAILOVER_FULL=1 npx vitest run --project exclusive packages/runner/test/failover-battery.e2e
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { quoteMailboxNames } from "@msgx/adapters-mysql";
import { createPgStores } from "@msgx/adapters-pg";
import { Target, type FlightState } from "@msgx/core";
import { gateService } from "@msgx/core/testing";
import { airportDay } from "../src/demo/airport-day.js";
import { CLUSTER_BROKERS, clusterCommand, gateKafkaCluster } from "../../adapters-kafka/test/kafka-cluster.js";
import { gatePgHa, haCommand, HA_PORTS } from "../../adapters-pg/test/pg-ha.js";
import { insertMailboxRows, mysqlPool, readTopics, sleep, URLS, type MysqlPool } from "../../../bench/fault/infra.js";
import { checkState, CLEAN_RUN, checkTopics, modelOutcome, statusKey } from "../../../bench/fault/model.js";
import { CLI, createMailbox, dropRun, realRun, spawnRealRunner, waitQuiet, type RunnerChild } from "../../../bench/fault/runner.js";

const FULL = process.env["MSGX_TEST_FAILOVER_FULL"] === "1";
const CFG = { updates: FULL ? 2_000 : 700, rounds: FULL ? 2 : 1, seed: 20261202 };
const LEASE_TTL_MS = 2_000;
const RUNNER_ENV = {
  MSGX_PIPELINE_MAX_RUN: "50",
  MSGX_PIPELINE_POLL_INTERVAL_MS: "100",
  MSGX_SCHD_FLUSH_PERIOD_MS: "200",
  MSGX_JOBS_BACKFILL_SWEEP_MS: "1000",
  MSGX_PG_LEASE_TTL_MS: String(LEASE_TTL_MS),
};
const BROKERS = CLUSTER_BROKERS.join(",");

const suite = "failover battery (a Kafka partition leader, the PostgreSQL primary, the leading runner) on the HA pair and the three-broker cluster";
const mariadb = await gateService("MariaDB", suite, async () => void (await (await mysql.createConnection({ uri: URLS.mysql, connectTimeout: 3_000 })).end()));
const cluster = mariadb.available ? await gateKafkaCluster(suite) : { available: false, startedHere: false };
const ha = mariadb.available && cluster.available ? await gatePgHa(suite) : { available: false, startMs: 0 };
const available = mariadb.available && cluster.available && ha.available;
const PG_URL = available ? await haCommand("url") : "";
const run = realRun(`fo_${process.pid}_${Date.now() % 100_000}`);

afterAll(async () => {
  if (ha.available) await haCommand("reset").catch((e: unknown) => console.error("[failover battery] pg-ha reset:", e));
  if (cluster.available) await dropRun(run, undefined, BROKERS).catch(() => undefined);
  if (cluster.startedHere) await clusterCommand(["stop"]).catch((e: unknown) => console.error("[failover battery] cluster stop:", e));
}, 300_000);

/**
 * A short-lived client of whichever node is the primary now (node-postgres takes one host per
 * client: the runner's multi-host URL is for the runner's own driver).
 */
async function withPg<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  for (const port of Object.values(HA_PORTS)) {
    const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/test`, connectionTimeoutMillis: 5_000 });
    c.on("error", () => undefined);
    try {
      await c.connect();
      if ((await c.query<{ r: boolean }>("SELECT pg_is_in_recovery() AS r")).rows[0]!.r) continue;
      return await work(c);
    } catch (e) {
      if (port === HA_PORTS.b) throw e;
    } finally {
      await c.end().catch(() => undefined);
    }
  }
  throw new Error("no PostgreSQL primary on the HA pair's ports");
}

/** The nodes `scripts/pg-ha status` reports running as a primary (a fenced node's line names none). */
const primaries = (status: string) => status.split("\n").filter((l) => /^node \S+ \S+ primary$/.test(l));

const TERMINAL = "('SUCCEEDED','SKIPPED','DEAD')";
async function appliedCount(): Promise<number> {
  for (;;) {
    try {
      return await withPg(async (c) => Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${run.schema}.proc_state WHERE status IN ${TERMINAL}`)).rows[0]!.n));
    } catch {
      await sleep(250); // the primary is moving
    }
  }
}

/**
 * The first moment after `at` the database records progress: a msg record acknowledged on
 * partition 0 (the killed broker led it), or else a message applied. Undefined while there is none.
 */
async function firstAfter(fault: string, at: number, waitMs = 0): Promise<number | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const t = await withPg(async (c) =>
      fault === "kafka partition leader"
        ? (await c.query<{ t: Date | null }>(`SELECT min(sent_at) AS t FROM ${run.schema}.msg_event_state WHERE kafka_partition = 0 AND target = $1 AND sent_at > $2`, [Target.MSG, new Date(at)])).rows[0]!.t
        : (await c.query<{ t: Date | null }>(`SELECT min(updated_at) AS t FROM ${run.schema}.proc_state WHERE status IN ${TERMINAL} AND updated_at > $1`, [new Date(at)])).rows[0]!.t,
    ).catch(() => null);
    if (t !== null) return t.getTime();
    if (Date.now() > deadline) return undefined;
    await sleep(200);
  }
}

interface Slot {
  /** The runner once it listens, which it does only once it leads (a standby waits before that). */
  current: RunnerChild | undefined;
  /** The process from its spawn on, so a stop reaches a standby too. */
  process: ChildProcess | undefined;
  readonly exits: (number | string)[];
  starts: number;
}

/** Two runner slots, each started again whenever its runner exits (as systemd would). */
class Supervisor {
  readonly slots: Slot[] = [
    { current: undefined, process: undefined, exits: [], starts: 0 },
    { current: undefined, process: undefined, exits: [], starts: 0 },
  ];
  private stopping = false;
  private readonly loops: Promise<void>[] = [];

  start(): void {
    for (const slot of this.slots) {
      this.loops.push(
        (async () => {
          while (!this.stopping) {
            slot.starts += 1;
            // A standby may wait for the lease as long as the leader keeps it.
            const r = await launch(() => this.stopping, STANDBY_WAIT_MS, (child) => (slot.process = child));
            if (r === undefined) return;
            slot.current = r;
            slot.exits.push(await r.exited);
            slot.current = undefined;
            slot.process = undefined;
            if (!this.stopping) await sleep(300);
          }
        })(),
      );
    }
  }

  /** The slot whose runner answers /readyz 200 (the leader), if any. */
  async leader(): Promise<number | undefined> {
    for (const [i, slot] of this.slots.entries()) {
      const r = slot.current;
      if (r === undefined) continue;
      try {
        const res = await fetch(new URL("/readyz", r.url), { signal: AbortSignal.timeout(1_000) });
        if (res.status === 200) return i;
      } catch {
        // stopped, frozen or starting
      }
    }
    return undefined;
  }

  async waitLeader(timeoutMs: number, not?: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = await this.leader();
      if (i !== undefined && i !== not) return i;
      if (Date.now() > deadline) throw new Error(`no runner led within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) {
      slot.process?.kill("SIGCONT");
      slot.process?.kill("SIGTERM");
    }
    const timer = setTimeout(() => {
      for (const s of this.slots) {
        if (s.process === undefined) continue;
        console.warn(`[failover battery] a runner ignored SIGTERM for 30 s${s.current ? `; its last output:\n${s.current.output().slice(-3_000)}` : ""}`);
        s.process.kill("SIGKILL");
      }
    }, 30_000);
    await Promise.all(this.loops);
    clearTimeout(timer);
  }
}

const STANDBY_WAIT_MS = 3_600_000;

/**
 * Starts a runner and resolves once it listens (leads), retrying while a dependency is down (it
 * refuses to start then); undefined once `stopped`.
 */
async function launch(stopped: () => boolean = () => false, timeoutMs = 60_000, onSpawn?: (child: ChildProcess) => void): Promise<RunnerChild | undefined> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (stopped()) return undefined;
    try {
      return await spawnRealRunner(run, RUNNER_ENV, timeoutMs, { pg: PG_URL, brokers: BROKERS, ...(onSpawn ? { onSpawn } : {}) });
    } catch (e) {
      if (stopped()) return undefined;
      // Exit 2 is a configuration error: retrying cannot help.
      if (Date.now() > deadline || String(e).includes("exited (2)")) throw e;
      await sleep(500);
    }
  }
}

/** Inserts the day with ids 1..N, 2 rows every `pauseMs` until `hurry()`, then the rest at once. */
function feed(pool: MysqlPool, raws: readonly string[], pauseMs: number, hurry: () => boolean, progress: { fed: number }): Promise<void> {
  return (async () => {
    for (let i = 0; i < raws.length; i += 2) {
      const part = raws.slice(i, i + 2);
      const ids = part.map((_, j) => i + j + 1);
      for (;;) {
        try {
          await insertMailboxRows(pool, run.names, part, { ids, chunk: 2 });
          break;
        } catch (e) {
          if ((e as { errno?: number }).errno === 1062) break; // committed before the connection broke
          await sleep(250);
        }
      }
      progress.fed = i + part.length;
      if (!hurry()) await sleep(pauseMs);
    }
  })();
}

type Fault = "kafka partition leader" | "postgresql primary" | "leading runner";
interface FaultLog {
  readonly fault: Fault;
  readonly at: number;
  readonly note: string;
  end?: number;
}

describe.skipIf(!available)(suite, () => {
  it(
    `loses, duplicates and reorders nothing through ${CFG.rounds === 1 ? "one" : "two"} kill -9 of the partition leader, of the PostgreSQL primary and a frozen leading runner`,
    async () => {
      expect(existsSync(CLI), `${CLI} missing: build first`).toBe(true);
      const started = Date.now();
      const raws = airportDay({ flights: 40, updates: CFG.updates, seed: CFG.seed % 1000 }).map((m) => m.xml);
      const expected = await modelOutcome(raws, { maxRun: 50 });

      await withPg((c) => c.query(`CREATE SCHEMA ${run.schema}`));
      const pool = mysqlPool(2);
      await createMailbox(pool, run);
      let faultsDone = false;
      const progress = { fed: 0 };
      const feeding = feed(pool, raws, 200, () => faultsDone, progress);

      const sup = new Supervisor();
      sup.start();
      await sup.waitLeader(120_000);
      /** Traffic flows: `n` more messages applied than now. */
      const flowing = async (n: number, label: string) => {
        const from = await appliedCount();
        const deadline = Date.now() + 120_000;
        while ((await appliedCount()) < from + n) {
          if (Date.now() > deadline) throw new Error(`${label}: fewer than ${n} messages applied in 120 s (fed ${progress.fed})`);
          await sleep(200);
        }
      };
      await flowing(20, "before the faults");

      const faults: FaultLog[] = [];
      for (let round = 0; round < CFG.rounds; round++) {
        // 1. The broker leading the msg topic's partition 0, kill -9, then back.
        const broker = Number(await clusterCommand(["leader", run.msgTopic, "0"]));
        await clusterCommand(["kill", String(broker)]);
        const kafkaFault: FaultLog = { fault: "kafka partition leader", at: Date.now(), note: `broker ${broker}` };
        faults.push(kafkaFault);
        // The restart waits for the new leader's first acknowledgement, so it cannot be what resumed partition 0.
        await firstAfter("kafka partition leader", kafkaFault.at, 60_000);
        const restartStarted = Date.now();
        await clusterCommand(["restart", String(broker)]);
        kafkaFault.end = Date.now();
        (kafkaFault as { note: string }).note += `, restarted and in sync in ${((Date.now() - restartStarted) / 1000).toFixed(1)} s`;
        await flowing(10, "after the broker restart");

        // 2. The PostgreSQL primary, kill -9, and the standby promoted.
        const before = await haCommand("status");
        await haCommand("kill-primary");
        const pgFault: FaultLog = { fault: "postgresql primary", at: Date.now(), note: "" };
        faults.push(pgFault);
        const promoteStarted = Date.now();
        await haCommand("promote");
        const promotedMs = Date.now() - promoteStarted;
        const after = await haCommand("status");
        expect(primaries(after), `${before}\n→\n${after}`).toHaveLength(1);
        (pgFault as { note: string }).note = `promote ${promotedMs} ms; ${after.split("\n").filter((l) => / primary| absent| fenced/.test(l)).join("; ")}`;
        await sup.waitLeader(120_000);
        await flowing(10, "after the promotion");
        pgFault.end = Date.now();
        if (round + 1 < CFG.rounds) {
          // A second round needs a standby again: the old primary comes back only as one.
          await haCommand("start");
          expect(await haCommand("status")).toMatch(/standby \(sync\)/);
        }

        // 3. The leading runner frozen beyond its lease, woken after the standby took over.
        const leader = await sup.waitLeader(60_000);
        const frozen = sup.slots[leader]!.current!;
        frozen.child.kill("SIGSTOP");
        const stopFault: FaultLog = { fault: "leading runner", at: Date.now(), note: "" };
        faults.push(stopFault);
        await sup.waitLeader(60_000, leader);
        const takeoverMs = Date.now() - stopFault.at;
        await sleep(Math.max(0, stopFault.at + LEASE_TTL_MS + 1_000 - Date.now()));
        const frozenMs = Date.now() - stopFault.at;
        frozen.child.kill("SIGCONT");
        const code = await Promise.race([frozen.exited, sleep(30_000).then(() => "still running" as const)]);
        expect(code, frozen.output().slice(-2_000)).toBe(3);
        (stopFault as { note: string }).note = `frozen ${frozenMs} ms, standby led after ${takeoverMs} ms, woken leader exited ${code}`;
        await flowing(10, "after the frozen leader");
        stopFault.end = Date.now();
      }
      faultsDone = true;
      const faultsEnd = Date.now();
      await feeding;
      const stopStarted = Date.now();
      await sup.stop();
      const stopMs = Date.now() - stopStarted;
      const exits = sup.slots.map((s) => `${s.starts} starts, exits [${s.exits.join(",")}]`).join("; ");

      // One runner drains everything, backfill debt included.
      const final = (await launch())!;
      const status = await waitQuiet(final.url, raws.length, 180_000, { debt: true });
      final.child.kill("SIGTERM");
      expect(await final.exited).toBe(0);
      // The old primaries never came back as a second primary.
      expect(primaries(await haCommand("status"))).toHaveLength(1);

      // Resume times and messages per fault, from the database's own record of the work.
      const timing = await withPg(async (c) => {
        const out: { resumeMs: number; messages: number }[] = [];
        for (const [i, f] of faults.entries()) {
          const next = faults[i + 1]?.at ?? faultsEnd;
          const messages = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${run.schema}.proc_state WHERE status IN ${TERMINAL} AND updated_at >= $1 AND updated_at < $2`, [new Date(f.at), new Date(next)]);
          const t = await firstAfter(f.fault, f.at);
          out.push({ resumeMs: t === undefined ? Number.NaN : t - f.at, messages: Number(messages.rows[0]!.n) });
        }
        return out;
      });

      const records = await readTopics([run.msgTopic, run.schdTopic], 90_000, BROKERS);
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
      const store = await createPgStores({ connectionString: PG_URL, schema: run.schema, migrate: false, max: 1 });
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

      // The checker counts over the whole run: 0 in total is 0 for every fault.
      const cell = (n: number) => String(n);
      console.info(`[failover battery] fault | messages | lost | duplicated effects | reorders | DEAD from faults | resume | note`);
      for (const [i, f] of faults.entries()) {
        const t = timing[i]!;
        console.info(
          `[failover battery] ${f.fault} | ${t.messages} | ${cell(counts.lost)} | ${cell(counts.duplicatedEffects)} | ${cell(counts.reorders)} | ${cell(counts.deadFromFaults)} | ${(t.resumeMs / 1000).toFixed(2)} s | ${f.note}`,
        );
      }
      console.info(
        `[failover battery] ${Math.round((Date.now() - started) / 1000)} s (pg-ha start ${(ha.startMs / 1000).toFixed(1)} s); ${raws.length} messages (${JSON.stringify(status.byStatus)}); runners: ${exits}, stopped in ${stopMs} ms`,
      );
      console.info(`[failover battery] COUNTS ${JSON.stringify(counts)}`);

      expect(faults).toHaveLength(3 * CFG.rounds);
      for (const [i, t] of timing.entries()) expect(Number.isFinite(t.resumeMs), `${faults[i]!.fault}: nothing resumed after it`).toBe(true);
      expect(counts).toMatchObject(CLEAN_RUN);
      expect(counts.firstDeliveries).toBe([...expected.msgByKey.values()].reduce((a, l) => a + l.length, 0));
    },
    FULL ? 3_600_000 : 600_000,
  );
});
