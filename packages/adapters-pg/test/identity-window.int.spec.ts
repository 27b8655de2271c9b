/**
 * The dedupe window (`identity.window`, WIRE.md "SEQN and identity") on the real stores: the pump
 * over PostgreSQL and PGlite, its clock and the store's one `ManualClock`, against the in-memory
 * store as the oracle — a differing body inside the window stays SKIPPED `content-differs`, one
 * beyond it is processed and takes the identity over (warned and audited `identity-reused`, the
 * row's `bound_at` the clock's), and an identical re-insert of any age dedupes.
 */
import { decodeMessage, Pump, sha256Hex, silentLogger, type Clock, type PipelineStore, type ProcessorTable } from "@msgx/core";
import { gateService, InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: identity window", probePostgres);

const estt = (flid: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>5</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>${flid}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;
const KEY = "AODB|FLOP|ESTT|5";
const HOUR = 3_600_000;
const WINDOW = 10 * HOUR;

/** Every FLOP applies with no state: what is judged here is the outcome of each record. */
const processors: ProcessorTable = { flop: { flightsOf: () => [], apply: () => ({ type: "applied", flights: [], events: [] }) } };

interface Outcome {
  readonly records: readonly (readonly [number, string, string | null, string | null])[];
  readonly warnings: readonly (readonly [number, string])[];
  readonly audits: readonly (readonly [string, string, readonly number[]])[];
  /** The binding after each step: owner, hash, and its bind time as an offset from the start. */
  readonly owners: readonly (readonly [number, string | null, number | undefined] | undefined)[];
}

/** Each step advances the clock by `after` ms, then inserts and processes one message. */
async function run(store: PipelineStore, clock: ManualClock, steps: readonly { readonly after: number; readonly raw: string }[]): Promise<Outcome> {
  const start = clock.now();
  const mailbox = new InMemoryMailbox(clock);
  const pump = new Pump(
    { store, mailbox, clock, logger: silentLogger, decode: (raw) => decodeMessage(raw), processors, horizon: () => Number.MAX_SAFE_INTEGER },
    { maxRun: 200, identity: { includeDayBoundary: false, window: WINDOW } },
  );
  const warnings: (readonly [number, string])[] = [];
  const owners: Outcome["owners"][number][] = [];
  for (const { after, raw } of steps) {
    clock.advance(after);
    const msgId = mailbox.insert(raw);
    await store.enqueue([{ msgId, receivedAt: clock.now() }], { horizon: msgId });
    for (;;) {
      const step = await pump.step();
      if (step.did !== "processed") break;
      for (const w of step.warnings ?? []) warnings.push([w.msgId, w.code]);
    }
    const owner = await store.transaction(async (tx) => (await tx.identityOwners([KEY])).get(KEY));
    owners.push(owner && ([owner.msgId, owner.contentHash, owner.boundAt === undefined ? undefined : owner.boundAt - start] as const));
  }
  await pump.settle();
  const records = (await store.list({})).map((r) => [r.msgId, r.status, r.errorClass, r.reason] as const);
  const audits = (await store.audits(10)).map((a) => [a.operator, a.action, a.msgIds] as const);
  return { records, warnings, audits, owners };
}

const STEPS = [
  { after: 0, raw: estt(900001) },
  // Exactly the window old: still inside.
  { after: WINDOW, raw: estt(900002) },
  // Just beyond it: a new message that takes the identity over.
  { after: 1, raw: estt(900003) },
  // The first body again, inside the new owner's window: its body differs from the owner's now.
  { after: HOUR, raw: estt(900001) },
  // The new owner's body, 400 days on: an identical re-insert dedupes at any age.
  { after: 400 * 24 * HOUR, raw: estt(900003) },
];

const EXPECTED: Outcome = {
  records: [
    [1, "SUCCEEDED", null, null],
    [2, "SKIPPED", null, "duplicate-of:1 content-differs"],
    [3, "SUCCEEDED", null, null],
    [4, "SKIPPED", null, "duplicate-of:3 content-differs"],
    [5, "SKIPPED", null, "duplicate-of:3"],
  ],
  warnings: [
    [2, "content-differs"],
    [3, "identity-reused"],
    [4, "content-differs"],
  ],
  audits: [["msgx", "identity-reused", [3, 1]]],
  owners: [
    [1, sha256Hex(estt(900001)), 0],
    [1, sha256Hex(estt(900001)), 0],
    [3, sha256Hex(estt(900003)), WINDOW + 1],
    [3, sha256Hex(estt(900003)), WINDOW + 1],
    [3, sha256Hex(estt(900003)), WINDOW + 1],
  ],
};

function scenarios(name: string, open: (clock: Clock) => Promise<{ store: PipelineStore; db: Kysely<any>; close: () => Promise<void> }>) {
  describe(name, () => {
    it("inside the window a differing body is SKIPPED content-differs; beyond it it is processed and takes the identity over; an identical one dedupes at any age — as the fake does", async () => {
      const clock = new ManualClock();
      const t = await open(clock);
      try {
        const outcome = await run(t.store, clock, STEPS);
        expect(outcome).toEqual(EXPECTED);
        const fakeClock = new ManualClock();
        expect(await run(new InMemoryPipelineStore(fakeClock), fakeClock, STEPS)).toEqual(outcome);
        const { rows } = await sql<{ msg_id: unknown; n: unknown }>`SELECT msg_id, count(*) OVER () AS n FROM msg_identity`.execute(t.db);
        expect(rows.map((r) => [Number(r.msg_id), Number(r.n)])).toEqual([[3, 1]]);
      } finally {
        await t.close();
      }
    });

    it("a binding written before the window existed is measured from its bound_at like any other", async () => {
      const clock = new ManualClock();
      const t = await open(clock);
      try {
        const at = new Date(clock.now() - WINDOW - 1).toISOString();
        await sql`INSERT INTO msg_identity (identity_key, msg_id, bound_at, content_hash) VALUES (${KEY}, 99, ${at}::timestamptz, ${sha256Hex(estt(900009))})`.execute(t.db);
        const outcome = await run(t.store, clock, [{ after: 0, raw: estt(900001) }]);
        expect(outcome.records).toEqual([[1, "SUCCEEDED", null, null]]);
        expect(outcome.audits).toEqual([["msgx", "identity-reused", [1, 99]]]);
      } finally {
        await t.close();
      }
    });
  });
}

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  scenarios("PgPipelineStore (PostgreSQL)", async (clock) => {
    const t = await freshPgSchema({ clock });
    return { store: t.store, db: t.db, close: () => t.close() };
  });
});

describe("on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  scenarios("PgPipelineStore (PGlite)", async (clock) => {
    const t = await pglite.freshSchema({ clock });
    return { store: t.store, db: t.db, close: () => t.close() };
  });
});
