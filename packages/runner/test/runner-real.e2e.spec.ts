import { readFileSync } from "node:fs";
import { join } from "node:path";
import kafkajs from "kafkajs";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createMailboxTables, quoteMailboxNames } from "@msgx/adapters-mysql";
import { gateService } from "@msgx/core/testing";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";
import { namesEnv, uniqueRenamedNames } from "./mysql-names.js";
import { eventually, FIXTURES, post, spawnRunner, probeKafka } from "./runner-process.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const MYSQL_URL = process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const run = `e2e_${process.pid}_${Date.now() % 100_000}`;

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const gates = [
  await gateService("PostgreSQL", "runner e2e on real infrastructure", async () => void (await pgClient.connect())),
  await gateService("MariaDB", "runner e2e on real infrastructure", async () => void (await (await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 })).end())),
  await gateService("Kafka", "runner e2e on real infrastructure", () => probeKafka([BROKERS])),
];
const available = gates.every((g) => g.available);
afterAll(async () => {
  if (available) await pgClient.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
  await pgClient.end().catch(() => undefined);
});

describe.skipIf(!available)("msgx run on PostgreSQL, MariaDB and Kafka (the built binary)", () => {
  it("applies a DNLD then a gate change; a real Kafka consumer reads both topics", async () => {
    await pgClient.query(`CREATE SCHEMA ${run}`);
    const my = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 });
    // Renamed tables and columns, given to the binary as MSGX_MYSQL_* variables.
    const names = uniqueRenamedNames("e2e");
    const { inbound, outbound } = quoteMailboxNames(names);
    await createMailboxTables(my as never, names);
    const msgTopic = `msg_${run}`;
    const schdTopic = `schd_${run}`;
    const runner = await spawnRunner(["--pg", PG_URL, "--mysql", MYSQL_URL, "--kafka", BROKERS], {
      MSGX_PG_SCHEMA: run,
      ...namesEnv(names),
      MSGX_KAFKA_MSG_TOPIC: msgTopic,
      MSGX_KAFKA_SCHD_TOPIC: schdTopic,
      MSGX_SCHD_FLUSH_PERIOD_MS: "300",
    });
    try {
      expect(await (await post(runner.url, readFileSync(join(FIXTURES, "01-schd-dnld-3-flights.xml"), "utf8"))).text()).toMatch(/^\d+$/);
      expect((await post(runner.url, readFileSync(join(FIXTURES, "03-flop-gtdt-gate-change.xml"), "utf8"))).status).toBe(200);
      const flight = await eventually(async () => {
        const res = await fetch(new URL("/admin/flights/900101", runner.url));
        const f = res.ok ? ((await res.json()) as { stateVersion: number; collections: { GTDT: { values: { GATE: string } }[] } }) : undefined;
        return f?.stateVersion === 2 ? f : undefined;
      }, 30_000, "flight 900101 at version 2");
      expect(flight.collections.GTDT[0]!.values.GATE).toBe("A25");
      // The mailbox rows are backfilled after their commit, a moment after the state is served.
      const c = inbound.columns;
      const backfilled = await eventually(async () => {
        const [rows] = await my.query(`SELECT ${c.id}, ${c.dateProcessed} IS NOT NULL AS done, ${c.subsystemType} AS type FROM ${inbound.table} ORDER BY ${c.id}`);
        const got = (rows as { done: number; type: string }[]).map((r) => [r.done, r.type]);
        return got.every(([done]) => done === 1) ? got : undefined;
      }, 30_000, "both mailbox rows backfilled");
      expect(backfilled).toEqual([
        [1, "SCHD"],
        [1, "FLOP"],
      ]);

      const kafka = new kafkajs.Kafka({ brokers: [BROKERS], clientId: "e2e-reader", logLevel: kafkajs.logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: `g_${run}` });
      await consumer.connect();
      await consumer.subscribe({ topics: [msgTopic, schdTopic], fromBeginning: true });
      const seen: { topic: string; key: string; version: number; eventId: string; value: unknown }[] = [];
      await consumer.run({
        eachMessage: async ({ topic, message }) => {
          const value = message.value ? (JSON.parse(message.value.toString()) as { stateVersion: number }) : null;
          seen.push({ topic, key: message.key!.toString(), version: value?.stateVersion ?? -1, eventId: message.headers?.["msgx-event-id"]?.toString() ?? "", value });
        },
      });
      await eventually(async () => (seen.some((s) => s.topic === schdTopic && s.key === "900101" && s.version === 2) && seen.filter((s) => s.topic === msgTopic).length >= 4 ? true : undefined), 60_000, "records on both topics");
      await consumer.disconnect();
      expect(seen.filter((s) => s.topic === msgTopic && s.key === "900101").map((s) => s.version)).toEqual([1, 2]);
      expect(seen.every((s) => /^\d+$/.test(s.eventId))).toBe(true);
      // Every value on msg and schd is a flight payload of the published schema.
      for (const s of seen.filter((s) => s.value !== null)) expect(schemaErrors("flight", s.value), `${s.topic} ${s.key} v${s.version}`).toEqual([]);
      const schd900101 = seen.filter((s) => s.topic === schdTopic && s.key === "900101").map((s) => s.version);
      expect(schd900101.at(-1)).toBe(2);
      expect([...schd900101].sort()).toEqual(schd900101);

      const ready = (await (await fetch(new URL("/readyz", runner.url))).json()) as { ready: boolean; checks: { name: string }[] };
      expect(ready.ready).toBe(true);
      expect(ready.checks.map((c) => c.name)).toEqual(["state", "mailbox", "kafka"]);
    } finally {
      runner.child.kill("SIGTERM");
      expect(await runner.exited).toBe(0);
      await my.query(`DROP TABLE IF EXISTS ${inbound.table}, ${outbound.table}`);
      await my.end();
    }
  }, 180_000);
});
