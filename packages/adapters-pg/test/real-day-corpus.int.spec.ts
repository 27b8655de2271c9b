/**
 * The real-day corpus (core/test/fixtures/real-day, WIRE.md outcomes in its manifest) through the
 * real Pump on PostgreSQL and on PGlite: every message reaches its manifest outcome on its first
 * attempt, every value it carries is in the stored state right after it, and the final flights and
 * reference rows equal those the same corpus leaves on the in-memory fakes.
 */
import type { FlightState, PipelineStore } from "@msgx/core";
import { gateService, InMemoryPipelineStore, InMemoryReferenceReader, ManualClock } from "@msgx/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, MANIFEST, REFERENCE_KEYS, runCorpusOnPump, type CorpusStateView, type CorpusVerdict } from "../../core/test/fixtures/real-day/corpus.js";
import { PgReferenceReader } from "../src/requests/pg-reference-reader.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: real-day corpus", probePostgres);

type Db = Omit<PgTestDb, "leadership">;

const pgView = (t: Db): CorpusStateView => {
  const refs = new PgReferenceReader(t.db);
  return {
    flight: async (flid) => (await t.store.transaction((tx) => tx.loadFlights([flid]))).get(flid),
    reference: (rtype, rkey) => refs.get(rtype, rkey),
  };
};

/** Every flight the corpus names and every reference row of its types, comparable across stores. */
async function finalState(flight: (flid: string) => Promise<unknown>, refs: { list(q: { rtype: string; limit: number; includeDeleted: boolean }): Promise<readonly unknown[]> }) {
  const flids = [...new Set(loadCorpus().flatMap((m) => [...m.raw.matchAll(/<FLID>(\d+)<\/FLID>/g)].map((x) => x[1]!)))].sort();
  const flights = Object.fromEntries(await Promise.all(flids.map(async (f) => [f, (await flight(f)) ?? null] as const)));
  const references = Object.fromEntries(
    await Promise.all(
      Object.keys(REFERENCE_KEYS).map(async (rtype) => [rtype, (await refs.list({ rtype, limit: 1000, includeDeleted: true })).map(({ updatedAt: _u, ...row }: any) => row)] as const),
    ),
  );
  return { flights, references };
}

async function onFakes() {
  const clock = new ManualClock();
  const store = new InMemoryPipelineStore(clock);
  const refs = new InMemoryReferenceReader(store.tables.requestTables);
  const view: CorpusStateView = { flight: async (flid) => store.tables.flights.get(flid), reference: (rtype, rkey) => refs.get(rtype, rkey) };
  const verdicts = await runCorpusOnPump(store, clock, view);
  return { verdicts, state: await finalState(view.flight, refs) };
}

function corpusSuite(name: string, open: (clock: ManualClock) => Promise<Db>, skip: boolean): void {
  describe.skipIf(skip)(`the real-day corpus through the real Pump on ${name}`, () => {
    let t: Db;
    let verdicts: CorpusVerdict[];
    let state: Awaited<ReturnType<typeof finalState>>;
    beforeAll(async () => {
      const clock = new ManualClock();
      t = await open(clock);
      const view = pgView(t);
      verdicts = await runCorpusOnPump(t.store as PipelineStore, clock, view);
      state = await finalState(view.flight, new PgReferenceReader(t.db));
    });
    afterAll(() => t?.close());

    it.each(MANIFEST.map((e) => [e.file, e.status] as const))("%s → %s", (file) => {
      const v = verdicts.find((x) => x.file === file)!;
      expect(v.problems, `${file}: ${JSON.stringify(v.outcome)}`).toEqual([]);
    });

    it("leaves the same flights and reference rows as the fakes", async () => {
      const fakes = await onFakes();
      expect(verdicts.map((v) => [v.file, v.outcome])).toEqual(fakes.verdicts.map((v) => [v.file, v.outcome]));
      const strip = (flights: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(flights).map(([k, f]) => [k, f === null ? null : normalizeFlight(f as FlightState)]));
      expect(strip(state.flights)).toEqual(strip(fakes.state.flights));
      expect(state.references).toEqual(fakes.state.references);
    });
  });
}

/** Row order inside a collection is not part of the state. */
function normalizeFlight(f: FlightState): FlightState {
  const collections = Object.fromEntries(Object.entries(f.collections).map(([k, rows]) => [k, [...(rows ?? [])].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))]));
  return { ...f, collections };
}

corpusSuite("PostgreSQL", (clock) => freshPgSchema({ clock }), !gate.available);

const pglite = new SharedPglite();
describe("PGlite", () => {
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  corpusSuite("PGlite", (clock) => pglite.freshSchema({ clock }), false);
});
