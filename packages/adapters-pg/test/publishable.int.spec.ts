/**
 * Nothing accepted that cannot be published, on PostgreSQL: a message whose event would be over
 * the broker limit leaves no row of its own, and the size the decision computed bounds the record
 * delivery builds from what the outbox gives back (the payload text as stored).
 */
import { decodeMessage, defaultProcessors, msgRecord, Pump, recordBytes, silentLogger, Target } from "@msgx/core";
import { encodedRecordBytes } from "@msgx/core/testing";
import { gateService, InMemoryMailbox, ManualClock, messageXml } from "@msgx/core/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgOutboxStore } from "../src/index.js";
import { freshPgSchema, probePostgres, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: publishable", probePostgres);

const meta = (seqn: number, type: string, styp: string) => ({ sndr: "AODB", seqn, dttm: "20260305020000", type, styp });
const DNLD = messageXml(
  meta(1, "SCHD", "DNLD"),
  `<SCHD><RECS>1</RECS><FLTR><FLID>900001</FLID><ALCD>LH</ALCD><FLNO>LH1000</FLNO><MVIN>A</MVIN><SODT>05MAR261000</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>320</ACFT><REMC>${"航".repeat(80)}</REMC></FLTR></SCHD>`,
);
const GATES = messageXml(meta(2, "FLOP", "GTDT"), `<FLOP><FLID>900001</FLID>${Array.from({ length: 60 }, (_, i) => `<GTDT GTNO="${i + 1}"><GATE>A${i + 1}</GATE></GTDT>`).join("")}</FLOP>`);
const ESTT = messageXml(meta(3, "FLOP", "ESTT"), `<FLOP><FLID>900001</FLID><ESTT>05MAR261015</ESTT></FLOP>`);

describe.skipIf(!gate.available)("publishable on PostgreSQL", () => {
  let t: PgTestDb;
  const clock = new ManualClock();
  beforeAll(async () => {
    t = await freshPgSchema({ clock: { now: () => clock.now(), monotonic: () => clock.monotonic() } });
  });
  afterAll(() => t.close());

  it("an over-limit message is DEAD(PROTOCOL) with no event or flight change; the stored events' records fit their decided size", async () => {
    const mailbox = new InMemoryMailbox(clock);
    const ids = [DNLD, GATES, ESTT].map((raw) => mailbox.insert(raw));
    await t.store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: Math.max(...ids) });
    const pump = new Pump(
      { store: t.store, mailbox, clock, logger: silentLogger, decode: (raw) => decodeMessage(raw), processors: defaultProcessors(), horizon: () => Number.MAX_SAFE_INTEGER },
      { maxRun: 200, maxRecordBytes: 2_000 },
    );
    expect(await pump.step()).toMatchObject({ did: "processed" });
    await pump.settle();

    const records = await Promise.all(ids.map((id) => t.store.get(id)));
    expect(records.map((r) => [r?.status, r?.errorClass])).toEqual([
      ["SUCCEEDED", null],
      ["DEAD", "PROTOCOL"],
      ["SUCCEEDED", null],
    ]);
    expect(records[1]?.reason).toMatch(/^unpublishable: event KAFKA:msg key 900001 would be \d+ bytes, over the broker limit of 2000 bytes$/);
    const rows = await sql<{ source_msg_id: string; state_version: string }>`SELECT source_msg_id, state_version FROM msg_event ORDER BY event_id`.execute(t.db);
    expect(rows.rows.map((r) => [Number(r.source_msg_id), Number(r.state_version)])).toEqual([
      [ids[0], 1],
      [ids[0], 1],
      [ids[2], 2],
      [ids[2], 2],
    ]);

    const events = await new PgOutboxStore(t.db).pending(Target.MSG, clock.now(), 10);
    expect(events).toHaveLength(2);
    for (const e of events) {
      const sent = recordBytes(msgRecord(e, "msg"));
      expect(encodedRecordBytes(e)).toBeGreaterThanOrEqual(sent);
      // Only the widest event id and traceparent and the deltas make the difference.
      expect(encodedRecordBytes(e) - sent).toBeLessThan(100);
    }
  });
});
