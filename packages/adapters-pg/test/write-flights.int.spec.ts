/**
 * `applyRun` rewrites only the collection tables whose rows changed since the transaction loaded
 * the flight (an ESTT update rewrites none), and still ends with exactly the decided rows — on
 * PostgreSQL and PGlite. Row identity is read from `xmin` (the writing transaction): an untouched
 * row keeps it.
 */
import { emptyRunDecision, type FlightState } from "@msgx/core";
import { gateService, sampleFlight } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: collection writes", probePostgres);

/** `[table, seq_key, xmin, row_values]` of every collection row of `flid`, sorted. */
async function collectionRows(db: Kysely<any>, flid: string): Promise<[string, string, string, unknown][]> {
  const { rows } = await sql<{ t: string; seq_key: string; x: string; v: unknown }>`
    SELECT 'GTDT' AS t, seq_key, xmin::text AS x, row_values AS v FROM flight_gtdt WHERE flid = ${flid}
    UNION ALL SELECT 'DELY', seq_key, xmin::text, row_values FROM flight_dely WHERE flid = ${flid}
    ORDER BY 1, 2`.execute(db);
  return rows.map((r) => [r.t, r.seq_key, r.x, r.v]);
}

function suite(open: () => Promise<Omit<PgTestDb, "leadership">>) {
  it("rewrites only changed collections after loadFlights, and every collection without it", async () => {
    const t = await open();
    try {
      const first = sampleFlight("900101", 1);
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [first] }));
      const written = await collectionRows(t.db, "900101");
      expect(written.map(([table, key]) => [table, key])).toEqual([
        ["DELY", "1"],
        ["GTDT", "1"],
      ]);

      // A scalar change: no collection row is touched.
      const estt: FlightState = { ...first, stateVersion: 2, scalars: { ...first.scalars, ESTT: "2026-03-05T08:20" } };
      await t.store.transaction(async (tx) => {
        const loaded = (await tx.loadFlights(["900101"])).get("900101")!;
        await tx.applyRun({ ...emptyRunDecision, flights: [{ ...estt, collections: loaded.collections }] });
      });
      expect(await collectionRows(t.db, "900101")).toEqual(written);

      // A gate change: GTDT is rewritten with the new rows, DELY stays untouched.
      const gate2: FlightState = { ...estt, stateVersion: 3, collections: { ...first.collections, GTDT: [{ key: "1", values: { GATE: "B7" } }, { key: "2", values: { GATE: "B9" } }] } };
      await t.store.transaction(async (tx) => {
        await tx.loadFlights(["900101"]);
        await tx.applyRun({ ...emptyRunDecision, flights: [gate2] });
      });
      const afterGate = await collectionRows(t.db, "900101");
      expect(afterGate.find(([table]) => table === "DELY")).toEqual(written.find(([table]) => table === "DELY"));
      expect(afterGate.filter(([table]) => table === "GTDT").map(([, key, x, v]) => [key, x === written[1]![2], v])).toEqual([
        ["1", false, { GATE: "B7" }],
        ["2", false, { GATE: "B9" }],
      ]);
      // Written twice in one transaction: the second write compares with the first, not the load.
      const gate3: FlightState = { ...gate2, stateVersion: 4, collections: { ...gate2.collections, GTDT: [] } };
      await t.store.transaction(async (tx) => {
        await tx.loadFlights(["900101"]);
        await tx.applyRun({ ...emptyRunDecision, flights: [gate3] });
        await tx.applyRun({ ...emptyRunDecision, flights: [{ ...gate3, stateVersion: 5, collections: gate2.collections }] });
      });
      expect((await collectionRows(t.db, "900101")).filter(([table]) => table === "GTDT").map(([, key, , v]) => [key, v])).toEqual([
        ["1", { GATE: "B7" }],
        ["2", { GATE: "B9" }],
      ]);

      // Without loadFlights in the transaction every collection is rewritten, to the decided rows.
      const before = await collectionRows(t.db, "900101");
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [{ ...first, stateVersion: 6 }] }));
      const rewritten = await collectionRows(t.db, "900101");
      expect(rewritten.map(([table, key, , v]) => [table, key, v])).toEqual(written.map(([table, key, , v]) => [table, key, v]));
      const dely = (rows: typeof before) => rows.find(([table]) => table === "DELY")![2];
      expect(dely(rewritten)).not.toBe(dely(before));
      expect(await t.store.transaction(async (tx) => (await tx.loadFlights(["900101"])).get("900101"))).toEqual({ ...first, stateVersion: 6 });
    } finally {
      await t.close();
    }
  });
}

describe.skipIf(!gate.available)("collection writes on PostgreSQL", () => {
  suite(() => freshPgSchema());
});

describe("collection writes on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  suite(() => pglite.freshSchema());
});
