/**
 * Group commit on PostgreSQL (SPEC §5): the pump committing runs of up to 200 messages must leave
 * exactly what one message per transaction leaves — statuses, bindings, flights, events — and
 * what the in-memory store leaves. A database fault inside a run is pinned to its message.
 */
import { defaultProcessors, ProcStatus, type PipelineStore } from "@msgx/core";
import { gateService, InMemoryPipelineStore, ManualClock, messageXml } from "@msgx/core/testing";

/** The real flight processors (SPEC §2.3). */
const processors = defaultProcessors();
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPgSchema, probePostgres, type PgTestDb } from "./pg-harness.js";
import { drain, fakeSnapshot, pgSnapshot, rigPump } from "./pump-drive.js";
import { adftXml, arbStreamItem, estt, streamToRaws } from "./sis-stream.arbitraries.js";

const gate = await gateService("PostgreSQL", "adapters-pg: group commit", probePostgres);
const RUNS = Number(process.env["MSGX_PG_PROPERTY_RUNS"] ?? 20);

describe.skipIf(!gate.available)("group commit over PgPipelineStore", () => {
  let t: PgTestDb;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock();
    t = await freshPgSchema({ clock: { now: () => clock.now(), monotonic: () => clock.monotonic() } });
  });
  afterAll(() => t.close());

  /** Runs `raws` through a pump over the PG store, on a fresh clock; returns the snapshot. */
  async function runOnPg(raws: readonly string[], maxRun: number) {
    await t.reset();
    clock = new ManualClock();
    const rig = await rigPump(t.store, clock, raws, { maxRun, processors });
    await drain(rig);
    return { snapshot: await pgSnapshot(t.store, t.db), mailbox: [...rig.mailbox.rows.values()].map((r) => r.processedAt) };
  }

  it("maxRun 200 and maxRun 1 leave identical state, equal to the in-memory store's", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbStreamItem(), { minLength: 1, maxLength: 60, size: "max" }), async (items) => {
        const raws = streamToRaws(items);
        const grouped = await runOnPg(raws, 200);
        const single = await runOnPg(raws, 1);
        const fakeClock = new ManualClock();
        const fake = new InMemoryPipelineStore(fakeClock);
        await drain(await rigPump(fake, fakeClock, raws, { maxRun: 200, processors }));

        expect(grouped.snapshot).toEqual(single.snapshot);
        expect(grouped.mailbox).toEqual(single.mailbox);
        expect(grouped.snapshot).toEqual(fakeSnapshot(fake));
        // Nothing is left unfinished and every terminal message was backfilled.
        expect(grouped.snapshot.records.every((r) => r.status !== ProcStatus.PENDING && r.status !== ProcStatus.FAILED)).toBe(true);
        expect(grouped.mailbox.every((at) => at !== null)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  const protocol = (seqn: number) => messageXml({ sndr: "AODB", seqn, dttm: "20260305020000", type: "FLOP", styp: "ESTT" }, "");

  /**
   * 40 messages: #1 creates seven flights, #10 is PROTOCOL, the rest change one flight each; a
   * trigger refuses to mark #25 SUCCEEDED while `fault_on` names it.
   */
  const FAULT_FLIDS = Array.from({ length: 7 }, (_, i) => String(900100 + i));
  const faultStream = () =>
    Array.from({ length: 40 }, (_, i) => (i === 0 ? adftXml(1, FAULT_FLIDS) : i + 1 === 10 ? protocol(i + 1) : estt(i + 1, FAULT_FLIDS[i % 7]!)));

  async function armFault(msgId: number | null): Promise<void> {
    await sql`CREATE TABLE IF NOT EXISTS fault_on (msg_id bigint)`.execute(t.db);
    await sql`DELETE FROM fault_on`.execute(t.db);
    if (msgId !== null) await sql`INSERT INTO fault_on VALUES (${msgId})`.execute(t.db);
    await sql`
      CREATE OR REPLACE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'SUCCEEDED' AND EXISTS (SELECT 1 FROM fault_on f WHERE f.msg_id = NEW.msg_id) THEN
          RAISE EXCEPTION 'injected fault on message %', NEW.msg_id;
        END IF;
        RETURN NEW;
      END $$`.execute(t.db);
    await sql`DROP TRIGGER IF EXISTS refuse_marked ON proc_state`.execute(t.db);
    await sql`CREATE TRIGGER refuse_marked BEFORE UPDATE ON proc_state FOR EACH ROW EXECUTE FUNCTION refuse_marked()`.execute(t.db);
  }

  async function runFaulty(maxRun: number, heal: boolean) {
    await t.reset();
    await armFault(25);
    clock = new ManualClock();
    const rig = await rigPump(t.store, clock, faultStream(), { maxRun, processors });
    const store: PipelineStore = t.store;
    let healed = false;
    for (let i = 0; i < 1_000; i++) {
      const step = await rig.pump.step();
      if (step.did === "idle") break;
      if (step.did === "wait") clock.set(step.until);
      if (heal && !healed && (await store.get(25))?.status === ProcStatus.FAILED) {
        await armFault(null);
        healed = true;
      }
    }
    await armFault(null);
    return pgSnapshot(t.store, t.db);
  }

  it("pins a PROTOCOL message and a later INFRA fault to their own messages, inside one run", async () => {
    const grouped = await runFaulty(200, false);
    const single = await runFaulty(1, false);
    expect(grouped).toEqual(single);
    const status = new Map(grouped.records.map((r) => [r.msgId, r]));
    for (let id = 1; id <= 40; id++) {
      const r = status.get(id)!;
      if (id === 10) expect(r).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL", attempts: 0 });
      else if (id === 25) {
        expect(r).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", attempts: 5 });
        expect(r.history.map((h) => h.errorClass)).toEqual(["INFRA", "INFRA", "INFRA", "INFRA", "INFRA"]);
        expect(r.history[0]!.reason).toMatch(/commit failed: .*injected fault on message 25/);
      } else expect(r, `message ${id}`).toMatchObject({ status: "SUCCEEDED", attempts: 0 });
    }
    // Two events (msg, schd) per changed flight, in message order; none for 10 and 25.
    const sources = [...new Set(grouped.events.map((e) => e["sourceMsgId"]))];
    expect(sources).toEqual(Array.from({ length: 40 }, (_, i) => i + 1).filter((id) => id !== 10 && id !== 25));
    expect(grouped.events.filter((e) => e["sourceMsgId"] === 1)).toHaveLength(14);
    expect(grouped.events.filter((e) => e["sourceMsgId"] === 2)).toHaveLength(2);
    expect(grouped.events.map((e) => e["eventId"])).toEqual(grouped.events.map((_, i) => i + 1));
  });

  it("retries the faulty message after its backoff and lets it succeed once the fault is gone", async () => {
    const grouped = await runFaulty(200, true);
    const single = await runFaulty(1, true);
    expect(grouped).toEqual(single);
    const r25 = grouped.records.find((r) => r.msgId === 25)!;
    expect(r25).toMatchObject({ status: "SUCCEEDED", attempts: 1, errorClass: null });
    expect(r25.history).toHaveLength(1);
    expect(grouped.records.filter((r) => r.status === "SUCCEEDED")).toHaveLength(39);
    expect([...new Set(grouped.events.map((e) => e["sourceMsgId"]))]).toEqual(Array.from({ length: 40 }, (_, i) => i + 1).filter((id) => id !== 10));
  });
});
