import { decodeMessage, defaultProcessors, Pump, silentLogger, Target, type OutboxStore, type PipelineStore } from "@msgx/core";
import { gateService, InMemoryMailbox, ManualClock } from "@msgx/core/testing";
// The request parts of core come from its sources until the core barrels export them.
import { describeOutboundMailboxContract } from "../../core/src/ports/outbound-mailbox.contract.js";
import { RequestCoordinator } from "../../core/src/requests/request-coordinator.js";
import { evolveRequest } from "../../core/src/requests/request-machine.js";
import { describeRequestStoreContract, sampleRequestDraft } from "../../core/src/processing/request-store.contract.js";
import type { RequestStore } from "../../core/src/requests/request-store.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgOutboxStore } from "../src/pg-outbox-store.js";
import { PgOutboundMailbox } from "../src/requests/pg-outbound-mailbox.js";
import { createPgOutboundTable } from "../src/requests/pg-outbound-schema.js";
import { PgReferenceReader } from "../src/requests/pg-reference-reader.js";
import { PgRequestStore } from "../src/requests/pg-request-store.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: requests and reference data", probePostgres);

const harness = (t: Omit<PgTestDb, "leadership">) => ({
  requests: new PgRequestStore(t.db),
  pipeline: t.store,
  references: new PgReferenceReader(t.db),
  close: t.close,
});

describe.skipIf(!gate.available)("requests on PostgreSQL", () => {
  describeRequestStoreContract("PgRequestStore (PostgreSQL, fresh schema per test)", async () => harness(await freshPgSchema({ clock: new ManualClock() })));

  describeOutboundMailboxContract("PgOutboundMailbox (PostgreSQL, embedded coutmsgs)", async () => {
    const t = await freshPgSchema();
    await createPgOutboundTable(t.db);
    return { outbound: new PgOutboundMailbox(t.db), close: t.close };
  });

  it("a pipeline transaction that loaded a request holds it: a concurrent expiry waits, then loses its compare-and-set", async () => {
    const t = await freshPgSchema({ clock: new ManualClock() });
    try {
      const requests = new PgRequestStore(t.db);
      const r = await requests.transaction((tx) => tx.insert(sampleRequestDraft()));
      const sent = evolveRequest(evolveRequest(r, { type: "send-attempted", at: 1, leaseUntil: 2 }), { type: "sent", at: 3, outboundId: 9, recovered: false, timeoutMs: 10 });
      expect(await requests.update(sent, r.version)).toBe(true);
      let loaded!: () => void;
      const isLoaded = new Promise<void>((resolve) => (loaded = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const match = { rule: "fallback" as const, msgId: 1, replyDttm: "20260305091620", replyAt: 4, detail: "d" };
      const pipeline = t.store.transaction(async (tx) => {
        const [open] = await tx.openRequests();
        loaded();
        await released;
        await tx.applyRun({ records: [], bindings: [], flights: [], events: [], backfill: [], requests: [{ request: evolveRequest(open!, { type: "answered", at: 5, match }), expectedVersion: open!.version }] });
      });
      await isLoaded;
      let settled = false;
      const expiry = requests.update(evolveRequest(sent, { type: "expired", at: 5, reason: "timeout" }), sent.version).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      release();
      await pipeline;
      expect(await expiry).toBe(false);
      expect((await requests.get(r.requestId))?.status).toBe("DONE");
    } finally {
      await t.close();
    }
  });

  describe("through the pump", () => {
    let t: PgTestDb;
    beforeAll(async () => {
      t = await freshPgSchema({ clock: new ManualClock() });
      await createPgOutboundTable(t.db);
    });
    afterAll(() => t.close());
    it("RQFD out to coutmsgs; its RESP applied and the request DONE in one transaction; RQRD answered into REF_MASTER", async () => {
      await pumpScenario(t.store, new PgRequestStore(t.db), new PgOutboundMailbox(t.db), new PgReferenceReader(t.db), new PgOutboxStore(t.db));
    });
  });
});

describe("requests on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeRequestStoreContract("PgRequestStore (PGlite in memory, fresh schema per test)", async () => harness(await pglite.freshSchema({ clock: new ManualClock() })));
  describeOutboundMailboxContract("PgOutboundMailbox (PGlite, embedded coutmsgs)", async () => {
    const t = await pglite.freshSchema();
    await createPgOutboundTable(t.db);
    return { outbound: new PgOutboundMailbox(t.db), close: t.close };
  });
  it("the pump scenario on PGlite", async () => {
    const t = await pglite.freshSchema({ clock: new ManualClock() });
    await createPgOutboundTable(t.db);
    try {
      await pumpScenario(t.store, new PgRequestStore(t.db), new PgOutboundMailbox(t.db), new PgReferenceReader(t.db), new PgOutboxStore(t.db));
    } finally {
      await t.close();
    }
  });
});

const resp = (seqn: number, dttm: string, sodt: string) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>SCHD</TYPE><STYP>RESP</STYP></META>` +
  `<SCHD><RECS>1</RECS><FLTR><FLID>900201</FLID><ALCD>CZ</ALCD><FLNO>CZ3102</FLNO><MVIN>A</MVIN><SODT>${sodt}</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>333</ACFT></FLTR></SCHD></MSG>`;
/** An ARPT reply in the upstream layout (RECS under MSG, records named ARPT). */
const arpt = (seqn: number, dttm: string) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>ARPT</TYPE><STYP>RESP</STYP></META>` +
  `<RECS>2</RECS><ARPT><ITCD>PEK</ITCD><ANAM>Beijing Capital</ANAM><ABBR CODE="ABR1">BJS</ABBR></ARPT><ARPT><ITCD>CAN</ITCD><ANAM></ANAM></ARPT></MSG>`;
/** An ARPT DNLD naming only PEK: it replaces the type, so CAN is deleted. */
const arptDnld = (seqn: number, dttm: string) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>ARPT</TYPE><STYP>DNLD</STYP></META>` +
  `<RECS>1</RECS><ARPT><ITCD>PEK</ITCD><ANAM>Beijing Capital</ANAM><ANMC>北京首都</ANMC><ABBR CODE="ABR1">BJS</ABBR></ARPT></MSG>`;

async function pumpScenario(store: PipelineStore, requests: RequestStore, outbound: PgOutboundMailbox, references: PgReferenceReader, outbox: OutboxStore): Promise<void> {
  // The pipeline store was built on a ManualClock at 2026-03-05T00:00Z (08:00 at +08:00).
  const clock = new ManualClock();
  const coordinator = new RequestCoordinator({ store: requests, outbound, clock, logger: silentLogger });
  const rqfd = await coordinator.request({ kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" }, "test");
  const rqrd = await coordinator.request({ kind: "RQRD", rtype: "ARPT" }, "test");
  expect([rqfd.status, rqrd.status]).toEqual(["SENT", "SENT"]);
  const [row] = await outbound.find({ ids: [rqfd.outboundId!] });
  expect(row).toMatchObject({ routingId: "VIEWRQFD", rawXml: rqfd.rawXml });
  expect(rqfd.rawXml).toBe(
    '<?xml version="1.0" encoding="UTF-8"?>\n<MSG xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="unisysaodbsis.xsd">' +
      "<META><SNDR>MSGX</SNDR><SEQN>000001</SEQN><DTTM>20260305080000</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP></META><RQFD><STDB>06MAR260000</STDB><STDE>06MAR262359</STDE></RQFD></MSG>",
  );

  const mailbox = new InMemoryMailbox(clock);
  const ids = [
    mailbox.insert(resp(1, "20260305075959", "06MAR260930")), // stamped before the request was sent: no-request
    mailbox.insert(resp(2, "20260305091620", "07MAR260930")), // outside [from, to]: PROTOCOL, request stays open
    mailbox.insert(resp(3, "20260305091621", "06MAR260930")), // the answer
    mailbox.insert(resp(4, "20260305091622", "06MAR261030")), // a second answer: the request is closed
    mailbox.insert(arpt(5, "20260305160000")),
    mailbox.insert(arptDnld(6, "20260305170000")),
  ];
  await store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: Math.max(...ids) });
  const pump = new Pump({
    store,
    mailbox,
    clock,
    logger: silentLogger,
    decode: (raw) => decodeMessage(raw),
    processors: defaultProcessors(),
    horizon: () => Math.max(...ids),
  });
  for (let i = 0; i < 20 && (await pump.step()).did === "processed"; i++);
  const outcome = await Promise.all(ids.map(async (id) => ((r) => `${r?.status}:${r?.reason ?? ""}`)(await store.get(id))));
  expect(outcome[0]).toBe("SKIPPED:no-request");
  expect(outcome[1]).toMatch(/^DEAD:RESP: FLID 900201 SODT 2026-03-07T09:30 outside request/);
  expect(outcome.slice(2)).toEqual(["SUCCEEDED:", "SKIPPED:no-request", "SUCCEEDED:", "SUCCEEDED:"]);

  const done = await requests.get(rqfd.requestId);
  expect(done).toMatchObject({ status: "DONE", closeReason: "answered", match: { rule: "fallback", msgId: ids[2], replyDttm: "20260305091621" } });
  expect(done?.match?.detail).toContain("reply DTTM 20260305091621 (+08:00 → 2026-03-05T01:16:21.000Z) ≥ sentAt 2026-03-05T00:00:00.000Z");
  expect((await requests.get(rqrd.requestId))?.match).toMatchObject({ rule: "fallback", msgId: ids[4] });
  await store.transaction(async (tx) => expect((await tx.loadFlights(["900201"])).get("900201")?.scalars.SODT).toBe("2026-03-06T09:30"));
  // The DNLD replaced the type: PEK changed, CAN (absent from it) is a tombstone keeping its fields.
  expect(await references.get("ARPT", "CAN")).toMatchObject({ fields: { ANAM: null }, deleted: true, version: 2, msgId: ids[5] });
  expect(await references.get("ARPT", "PEK")).toMatchObject({ fields: { ANAM: "Beijing Capital", ANMC: "北京首都", ABBR: { ABR1: "BJS" } }, deleted: false, version: 2, msgId: ids[5] });
  expect((await references.list({ rtype: "ARPT", limit: 10 })).map((e) => e.rkey)).toEqual(["PEK"]);
  const events = await outbox.pending(Target.REF, Number.MAX_SAFE_INTEGER, 100);
  expect(events.map((e) => `${e.eventType} ${e.partitionKey} v${e.stateVersion} #${e.sourceMsgId}`)).toEqual([
    `UPSERT ARPT:PEK v1 #${ids[4]}`,
    `UPSERT ARPT:CAN v1 #${ids[4]}`,
    `UPSERT ARPT:PEK v2 #${ids[5]}`,
    `TOMBSTONE ARPT:CAN v2 #${ids[5]}`,
  ]);
  expect(events[2]?.payload).toStrictEqual({
    schemaVersion: 1,
    type: "ARPT",
    key: "PEK",
    version: 2,
    lastMsgId: ids[5],
    lastSrcDttm: "20260305170000",
    fields: { ANAM: "Beijing Capital", ANMC: "北京首都", ABBR: { ABR1: "BJS" } },
  });
  expect(events[3]?.payload).toBeNull();
}
