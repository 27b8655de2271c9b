/**
 * The identity and type-policy rules of WIRE.md on the real stores: the content hash kept with a
 * binding, a taken identity with a different body (`content-differs`, skip and dead), an identical
 * re-insert, a binding from before hashes (NULL), and the audit row of an UNSUPPORTED message in
 * `skip` mode — on PostgreSQL and PGlite, each against the in-memory store as the oracle.
 */
import { decodeMessage, Pump, sha256Hex, silentLogger, type PipelineStore, type ProcessorTable } from "@msgx/core";
import { type PumpOptions } from "@msgx/core";
import { gateService, InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: identity content", probePostgres);

const estt = (flid: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>5</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>${flid}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;
const unknown = `<MSG><META><SNDR>AODB</SNDR><SEQN>6</SEQN><DTTM>20260305020000</DTTM><TYPE>ZZZZ</TYPE><STYP>NONE</STYP></META><ZZZZ/></MSG>`;
const KEY = "AODB|FLOP|ESTT|5";

/** Every FLOP applies with no state: what is judged here is the outcome of each record. */
const processors: ProcessorTable = { flop: { flightsOf: () => [], apply: () => ({ type: "applied", flights: [], events: [] }) } };

interface Outcome {
  readonly records: readonly (readonly [number, string, string | null, string | null])[];
  readonly warnings: readonly (readonly [number, string])[];
  readonly audits: readonly (readonly [string, string, readonly number[], string])[];
}

async function run(store: PipelineStore, raws: readonly string[], options: Partial<PumpOptions>): Promise<Outcome> {
  const clock = new ManualClock();
  const mailbox = new InMemoryMailbox(clock);
  const ids = raws.map((raw) => mailbox.insert(raw));
  await store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: Math.max(...ids) });
  const pump = new Pump(
    { store, mailbox, clock, logger: silentLogger, decode: (raw) => decodeMessage(raw), processors, horizon: () => Number.MAX_SAFE_INTEGER },
    { maxRun: 200, ...options },
  );
  const warnings: (readonly [number, string])[] = [];
  for (;;) {
    const step = await pump.step();
    if (step.did !== "processed") break;
    for (const w of step.warnings ?? []) warnings.push([w.msgId, w.code]);
  }
  await pump.settle();
  const records = (await store.list({})).map((r) => [r.msgId, r.status, r.errorClass, r.reason] as const);
  const audits = (await store.audits(10)).map((a) => [a.operator, a.action, a.msgIds, a.detail] as const);
  return { records, warnings, audits };
}

const SKIP: Outcome = {
  records: [
    [1, "SUCCEEDED", null, null],
    [2, "SKIPPED", null, "duplicate-of:1"],
    [3, "SKIPPED", null, "duplicate-of:1 content-differs"],
    [4, "SKIPPED", null, "unsupported:ZZZZ/NONE"],
  ],
  warnings: [[3, "content-differs"]],
  audits: [["msgx", "unsupported-skipped", [4], "unsupported:ZZZZ/NONE"]],
};
const SKIP_OPTIONS: Partial<PumpOptions> = { unsupported: { mode: "skip", maxAttempts: 3, headDeadlineMs: 10_000 } };
const DEAD_OPTIONS: Partial<PumpOptions> = { identity: { includeDayBoundary: false, onContentDiffers: "dead" } };

function scenarios(name: string, open: () => Promise<{ store: PipelineStore; db: Kysely<any>; close: () => Promise<void> }>) {
  describe(name, () => {
    it("identical re-insert dedupes, a different body is SKIPPED content-differs with a warning, unsupported: skip is audited — as the fake does", async () => {
      const t = await open();
      try {
        const raws = [estt(900001), estt(900001), estt(900002), unknown];
        const outcome = await run(t.store, raws, SKIP_OPTIONS);
        expect(outcome).toEqual(SKIP);
        expect(await run(new InMemoryPipelineStore(new ManualClock()), raws, SKIP_OPTIONS)).toEqual(outcome);
        const { rows } = await sql<{ identity_key: string; content_hash: string | null }>`SELECT identity_key, content_hash FROM msg_identity ORDER BY identity_key`.execute(t.db);
        expect(rows).toEqual([
          { identity_key: KEY, content_hash: sha256Hex(estt(900001)) },
          { identity_key: "AODB|ZZZZ|NONE|6", content_hash: sha256Hex(unknown) },
        ]);
      } finally {
        await t.close();
      }
    });

    it("onContentDiffers: dead holds a different body DEAD(PROTOCOL) for review", async () => {
      const t = await open();
      try {
        const raws = [estt(900001), estt(900002), estt(900001)];
        const outcome = await run(t.store, raws, DEAD_OPTIONS);
        expect(outcome.records).toEqual([
          [1, "SUCCEEDED", null, null],
          [2, "DEAD", "PROTOCOL", "duplicate-of:1 content-differs"],
          [3, "SKIPPED", null, "duplicate-of:1"],
        ]);
        expect(outcome.warnings).toEqual([[2, "content-differs"]]);
        expect(await run(new InMemoryPipelineStore(new ManualClock()), raws, DEAD_OPTIONS)).toEqual(outcome);
      } finally {
        await t.close();
      }
    });

    it("a binding stored before hashes (content_hash NULL) gets the plain duplicate rule", async () => {
      const t = await open();
      try {
        await sql`INSERT INTO msg_identity (identity_key, msg_id, bound_at) VALUES (${KEY}, 99, now())`.execute(t.db);
        const outcome = await run(t.store, [estt(900002)], {});
        expect(outcome).toEqual({ records: [[1, "SKIPPED", null, "duplicate-of:99"]], warnings: [], audits: [] });
      } finally {
        await t.close();
      }
    });
  });
}

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  scenarios("PgPipelineStore (PostgreSQL)", async () => {
    const t = await freshPgSchema();
    return { store: t.store, db: t.db, close: () => t.close() };
  });
});

describe("on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  scenarios("PgPipelineStore (PGlite)", async () => {
    const t = await pglite.freshSchema();
    return { store: t.store, db: t.db, close: () => t.close() };
  });
});
