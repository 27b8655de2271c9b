/**
 * Lineage against the truth (issue 23, must show): the built runner on real PostgreSQL and Kafka
 * processes 50 messages on ONE flight (a SCHD/DNLD that creates it, then 49 FLOP/GTDT gate
 * changes), a real kafkajs consumer reads both topics from the beginning, and
 * `GET /admin/flights/<FLID>/lineage` must list all 50 versions, each naming the message that made
 * it (mailbox id as the ingress answered it, TYPE/STYP/DTTM as posted), and each event's id and
 * (partition, offset) must be exactly where the consumer read a record carrying that
 * `msgx-event-id`. `msgx flights lineage --url … --json` must print the same page.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import kafkajs from "kafkajs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, dropKafkaRun, eventually, FIXTURES, gatePgAndKafka, post, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const BROKERS = process.env["MSGX_TEST_KAFKA_BROKERS"] ?? "127.0.0.1:9092";
const run = `lineage_${process.pid}_${Date.now() % 100_000}`;
const suite = "lineage of one flight on PostgreSQL and Kafka";
const FLID = "900101";
const MESSAGES = 50;
const msgTopic = `msg_${run}`;
const schdTopic = `schd_${run}`;

const pgClient = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
const available = await gatePgAndKafka(suite, pgClient, BROKERS);

let runner: RunnerProcess | undefined;
let dir: string | undefined;

beforeAll(async () => {
  if (!available) return;
  await pgClient.query(`CREATE SCHEMA ${run}`);
  dir = mkdtempSync(join(tmpdir(), "msgx-lineage-"));
  runner = await spawnRunner(["--pg", PG_URL, "--kafka", BROKERS, "--data-dir", join(dir, "data")], {
    MSGX_PG_SCHEMA: run,
    MSGX_KAFKA_MSG_TOPIC: msgTopic,
    MSGX_KAFKA_SCHD_TOPIC: schdTopic,
    MSGX_KAFKA_REF_TOPIC: `ref_${run}`,
    MSGX_SCHD_FLUSH_PERIOD_MS: "300",
  });
}, 120_000);

afterAll(async () => {
  await stopRunner(runner, suite);
  if (available) {
    await pgClient.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
    await dropKafkaRun(BROKERS, run).catch((e: unknown) => console.warn(`[${suite}] topics or groups of ${run} left behind:`, e));
  }
  await pgClient.end().catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The shared DNLD fixture cut to flight 900101 alone: the message that creates version 1. */
function createMessage(): string {
  const xml = readFileSync(join(FIXTURES, "01-schd-dnld-3-flights.xml"), "utf8");
  const first = xml.slice(xml.indexOf("<FLTR>"), xml.indexOf("</FLTR>") + "</FLTR>".length);
  return xml.slice(0, xml.indexOf("<RECS>")) + `<RECS>1</RECS>\n ${first}</SCHD></MSG>`;
}

/** The i-th gate change (1–49): its own SEQN, a later DTTM than the one before, gate G<i>. */
function gateChange(i: number): { xml: string; dttm: string } {
  const dttm = `2026030506${String(i).padStart(2, "0")}00`;
  const xml =
    `<MSG><META><SNDR>AODB</SNDR><SEQN>${481000 + i}</SEQN><DTTM>${dttm}</DTTM><TYPE>FLOP</TYPE><STYP>GTDT</STYP></META>` +
    `<FLOP><FLID>${FLID}</FLID><FFID>CZ-CZ3101-D-05MAR260800-D</FFID>` +
    `<GTDT GTNO="1"><GATE>G${String(i).padStart(2, "0")}</GATE><PGOT>05MAR260710</PGOT><PGCT>05MAR260745</PGCT><GTYP>D</GTYP></GTDT></FLOP></MSG>`;
  return { xml, dttm };
}

interface LineageEvent {
  eventId: number;
  target: string;
  eventType: string;
  status: string;
  sentAt: number | null;
  partition: number | null;
  offset: number | null;
}
interface LineageVersion {
  version: number;
  at: number;
  source: { msgId: number; type: string; subtype: string; dttm: string; status: string; errorClass: string | null } | null;
  events: LineageEvent[];
  changes: { field: string; before?: unknown; after?: unknown }[];
}
interface LineageAnswer {
  flid: string;
  versions: LineageVersion[];
  next: number | null;
}

/** A record as the consumer read it: where, and what the relay's headers say. */
interface ReadRecord {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  eventId: number;
  stateVersion: number;
  sourceMsgId: number;
}

describe.skipIf(!available)(suite, () => {
  it("lists every version with the message that made it and the exact partition and offset of each record", async () => {
    const url = runner!.url;
    // Posted one after the other: the mailbox id each answer names is the message of version i+1.
    const posted: { msgId: number; type: string; subtype: string; dttm: string }[] = [];
    const first = await post(url, createMessage());
    expect(first.status).toBe(200);
    posted.push({ msgId: Number(await first.text()), type: "SCHD", subtype: "DNLD", dttm: "20260305020000" });
    for (let i = 1; i < MESSAGES; i++) {
      const { xml, dttm } = gateChange(i);
      const res = await post(url, xml);
      expect(res.status).toBe(200);
      posted.push({ msgId: Number(await res.text()), type: "FLOP", subtype: "GTDT", dttm });
    }

    const lineageUrl = new URL(`/admin/flights/${FLID}/lineage?limit=500`, url);
    // Every version stored and every event acknowledged by the broker (SENT).
    const lineage = await eventually(
      async () => {
        const res = await fetch(lineageUrl);
        const body = res.ok ? ((await res.json()) as LineageAnswer) : undefined;
        return body && body.versions.length === MESSAGES && body.versions.every((v) => v.events.every((e) => e.status === "SENT")) ? body : undefined;
      },
      90_000,
      `${MESSAGES} versions of ${FLID}, every event SENT`,
    );

    const kafka = new kafkajs.Kafka({ brokers: BROKERS.split(","), clientId: "lineage-e2e", logLevel: kafkajs.logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `g_${run}` });
    const read: ReadRecord[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [msgTopic, schdTopic], fromBeginning: true });
      const header = (h: kafkajs.IHeaders | undefined, name: string) => Number(h?.[name]?.toString());
      await consumer.run({
        eachMessage: async ({ topic, partition, message }) => {
          read.push({
            topic,
            partition,
            offset: Number(message.offset),
            key: message.key!.toString(),
            eventId: header(message.headers, "msgx-event-id"),
            stateVersion: header(message.headers, "msgx-state-version"),
            sourceMsgId: header(message.headers, "msgx-source-msg-id"),
          });
        },
      });
      await eventually(
        async () => (read.filter((r) => r.topic === msgTopic).length >= MESSAGES && read.some((r) => r.topic === schdTopic && r.stateVersion === MESSAGES) ? true : undefined),
        60_000,
        `${MESSAGES} records on ${msgTopic} and version ${MESSAGES} on ${schdTopic}`,
      );
    } finally {
      await consumer.disconnect();
    }
    const at = new Map(read.map((r) => [`${r.topic}/${r.partition}/${r.offset}`, r]));
    const msgTarget = "KAFKA:msg";
    const schdTarget = "KAFKA:schd";

    expect(lineage.flid).toBe(FLID);
    expect(lineage.next).toBeNull();
    expect(lineage.versions.map((v) => v.version)).toStrictEqual(Array.from({ length: MESSAGES }, (_, i) => MESSAGES - i));
    for (const v of lineage.versions) {
      const made = posted[v.version - 1]!;
      expect(v.source, `version ${v.version}`).toStrictEqual({ ...made, status: "SUCCEEDED", errorClass: null });
      expect(v.events.map((e) => e.target), `version ${v.version}`).toStrictEqual([msgTarget, schdTarget]);
      // The change stream carries every version: its record must be exactly where lineage says.
      const msg = v.events[0]!;
      expect(msg.partition, `version ${v.version}: the relay recorded no partition for event ${msg.eventId}`).not.toBeNull();
      expect(msg.offset, `version ${v.version}: the relay recorded no offset for event ${msg.eventId}`).not.toBeNull();
      const record = at.get(`${msgTopic}/${msg.partition}/${msg.offset}`);
      expect(record, `version ${v.version}: no record on ${msgTopic} at ${msg.partition}@${msg.offset}`).toBeDefined();
      expect(record).toStrictEqual({ topic: msgTopic, partition: msg.partition, offset: msg.offset, key: FLID, eventId: msg.eventId, stateVersion: v.version, sourceMsgId: made.msgId });
      // The latest-state topic merges pending versions per flight: a record carries the newest,
      // whose event holds the placement; the ones it superseded were sent as part of it (no placement).
      const schd = v.events[1]!;
      if (schd.partition !== null) {
        expect(at.get(`${schdTopic}/${schd.partition}/${schd.offset}`), `version ${v.version} on ${schdTopic}`).toMatchObject({ key: FLID, eventId: schd.eventId, stateVersion: v.version, sourceMsgId: made.msgId });
      }
    }
    expect(lineage.versions[0]!.events[1]!.partition, `the newest version's ${schdTopic} record`).not.toBeNull();
    // Every record the consumer read of this flight is the placement of one lineage event.
    const placed = new Set(lineage.versions.flatMap((v) => v.events.filter((e) => e.partition !== null).map((e) => e.eventId)));
    expect(read.filter((r) => r.topic === msgTopic).every((r) => placed.has(r.eventId))).toBe(true);

    // What changed: version 1 states the flight; the first FLOP also states the FFID the DNLD left
    // out; each gate change moves GTDT and the bookkeeping.
    expect(lineage.versions.at(-1)!.changes.some((c) => c.field === "flid" && c.after === FLID && !("before" in c))).toBe(true);
    const [v3, v2] = lineage.versions.slice(-3);
    expect(v2!.changes.map((c) => c.field)).toStrictEqual(["ffid", "stateVersion", "lastMsgId", "lastSrcDttm", "collections.GTDT"]);
    expect(v2!.changes[0]).toStrictEqual({ field: "ffid", before: null, after: "CZ-CZ3101-D-05MAR260800-D" });
    expect(v3!.changes.map((c) => c.field)).toStrictEqual(["stateVersion", "lastMsgId", "lastSrcDttm", "collections.GTDT"]);
    expect(v3!.changes[2]).toStrictEqual({ field: "lastSrcDttm", before: posted[1]!.dttm, after: posted[2]!.dttm });
    expect(JSON.stringify(v3!.changes[3]!.before)).toContain('"GATE":"G01"');
    expect(JSON.stringify(v3!.changes[3]!.after)).toContain('"GATE":"G02"');

    // Paging gives the same versions.
    const page = (await (await fetch(new URL(`/admin/flights/${FLID}/lineage?limit=20&before=31`, url))).json()) as LineageAnswer;
    expect(page.versions).toStrictEqual(lineage.versions.slice(20, 40));
    expect(page.next).toBe(11);

    // The CLI through the running runner prints the same page.
    const cli = await promisify(execFile)(process.execPath, [CLI, "flights", "lineage", FLID, "--url", url, "--limit", "500", "--json"], { encoding: "utf8" });
    expect(JSON.parse(cli.stdout)).toStrictEqual(lineage);
    const table = await promisify(execFile)(process.execPath, [CLI, "flights", "lineage", FLID, "--url", url, "--limit", "3"], { encoding: "utf8" });
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(new RegExp(`^50\\s.*\\s${posted[49]!.msgId}\\s+FLOP/GTDT\\s+${posted[49]!.dttm}\\s+SUCCEEDED\\s+KAFKA:msg SENT \\d+@\\d+`));
    expect(lines[4]).toBe("older versions: --before 48");
  }, 240_000);
});
