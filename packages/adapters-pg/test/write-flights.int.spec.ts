/**
 * `applyRun` rewrites only the collection tables whose rows changed since the transaction loaded
 * the flight (an ESTT update rewrites none), and `commitRun` only those that differ from the
 * stored flights it is given; both still end with exactly the decided rows — on
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

/**
 * A flight holding every collection of the schema, the nested VIPT and the code-keyed ones among
 * them, with set, cleared (`null`) and absent values, and the scalars WIRE.md added.
 */
const everyCollection = (): FlightState => ({
  ...sampleFlight("900201", 1),
  scalars: {
    ALCD: "CZ",
    FLNO: "CZ3101",
    MVIN: "D",
    SODT: "2026-03-05T08:00",
    FLTY: "W",
    FLIN: "R",
    ACFT: "321",
    IEST: "2026-03-05T08:05",
    "PORT@O": "2026-03-05T07:30",
    "PORT@C": null,
    VIPP: "2",
    VIPR: "A",
    LBNO: "L1",
    LBWT: "120",
  },
  collections: {
    ROUT: [{ key: "1", values: { APCD: "PEK", SCAT: "2026-03-05T11:10" } }],
    ERUT: [
      { key: "1", values: { APCD: "CAN", SCDT: "2026-03-05T08:00", SDDC: "+0" } },
      { key: "2", values: { APCD: "PEK", SCAT: "2026-03-06T01:10", SADC: "+1" } },
    ],
    PSDT: [{ key: "1", values: { PSST: "210", STST: null, PSTM: "2026-03-05T08:05", PSID: "P", TRTM: "2026-03-05T08:03" } }],
    GTDT: [],
    CKDT: [{ key: "2", values: { CHKC: "C12", CCLS: "Y" } }],
    CLDT: [{ key: "1", values: { BELT: "b05" } }],
    CHDT: [{ key: "1", values: { CHUT: "M3", CBTM: null } }],
    CHOT: [
      { key: "1", values: { CHTM: "2026-03-05T07:41", CHID: "ON", CHST: "210" } },
      { key: "2", values: { CHTM: "2026-03-05T08:06", CHID: "OFF", CHST: "210" } },
    ],
    ABTM: [{ key: "1", values: { ABDG: "B12", ABOP: "A", AOTM: "2026-03-05T07:45" } }],
    DELY: [
      { key: "81", values: { "@CODE": "81", "@STRT": "2026-03-05T08:00", "@DURA": "00:25", "#text": "ATC flow" } },
      { key: "93", values: { "@CODE": "93", "#text": null } },
    ],
    SRVT: [
      { key: "MEAL", values: { SRTC: "MEAL", SRQT: "1" } },
      { key: "WCHR", values: { SRTC: "WCHR", SRQT: "2", SRST: "2026-03-05T07:00", SRET: null, SRPR: "1001", SANR: "X1", SARR: "中文" } },
    ],
    VIPF: [
      { key: "V1", values: { VPCD: "V1", VFES: "2" } },
      { key: "V2", values: { VPCD: "V2" } },
    ],
    VIPT: [
      { key: "V1/CAR", values: { VPCD: "V1", VSCD: "CAR", VTQY: "1", VTST: "2026-03-05T06:00", VTET: "2026-03-05T06:30" } },
      { key: "V1/LNG", values: { VPCD: "V1", VSCD: "LNG", VTQY: null } },
    ],
  },
});

function suite(open: () => Promise<Omit<PgTestDb, "leadership">>) {
  it("a flight with every collection (VIPF with VIPT, SRVT, ABTM, DELY by code, CHOT…) round-trips exactly", async () => {
    const t = await open();
    try {
      const flight = everyCollection();
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [flight] }));
      expect(await t.store.transaction(async (tx) => (await tx.loadFlights(["900201"])).get("900201"))).toStrictEqual(flight);
      const { rows } = await sql<{ n: string }>`
        SELECT (SELECT count(*) FROM flight_abtm WHERE flid = '900201') + (SELECT count(*) FROM flight_srvt WHERE flid = '900201')
             + (SELECT count(*) FROM flight_vipf WHERE flid = '900201') + (SELECT count(*) FROM flight_vipt WHERE flid = '900201') AS n`.execute(t.db);
      expect(Number(rows[0]!.n)).toBe(7);
      // Emptied, unset and changed collections are written as such.
      const { VIPT: _vipt, ABTM: _abtm, ...rest } = flight.collections;
      const next: FlightState = { ...flight, stateVersion: 2, collections: { ...rest, VIPF: [], SRVT: [{ key: "MEAL", values: { SRTC: "MEAL", SRQT: "3" } }] } };
      await t.store.transaction(async (tx) => {
        await tx.loadFlights(["900201"]);
        await tx.applyRun({ ...emptyRunDecision, flights: [next] });
      });
      expect(await t.store.transaction(async (tx) => (await tx.loadFlights(["900201"])).get("900201"))).toStrictEqual(next);
    } finally {
      await t.close();
    }
  });

  it("rewrites only changed collections after loadFlights, and every collection without it", async () => {
    const t = await open();
    try {
      const first = sampleFlight("900101", 1);
      await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [first] }));
      const written = await collectionRows(t.db, "900101");
      expect(written.map(([table, key]) => [table, key])).toEqual([
        ["DELY", "81"],
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

  it("commitRun rewrites only the collections that differ from the stored flights it is given, and every collection of a flight it is not given", async () => {
    const t = await open();
    try {
      const generation = async () => (await t.store.loadRunState([], [])).generation;
      const first = sampleFlight("900101", 1);
      await t.store.commitRun({ ...emptyRunDecision, flights: [first] }, { generation: await generation() });
      const written = await collectionRows(t.db, "900101");
      expect(written.map(([table, key]) => [table, key])).toEqual([
        ["DELY", "81"],
        ["GTDT", "1"],
      ]);

      // A scalar change decided from the stored flight: no collection row is touched.
      const estt: FlightState = { ...first, stateVersion: 2, scalars: { ...first.scalars, ESTT: "2026-03-05T08:20" } };
      await t.store.commitRun({ ...emptyRunDecision, flights: [estt] }, { generation: await generation(), stored: new Map([["900101", first]]) });
      expect(await collectionRows(t.db, "900101")).toEqual(written);

      // A gate change: GTDT is rewritten with the new rows, DELY stays untouched.
      const gate2: FlightState = { ...estt, stateVersion: 3, collections: { ...first.collections, GTDT: [{ key: "1", values: { GATE: "B7" } }, { key: "2", values: { GATE: "B9" } }] } };
      await t.store.commitRun({ ...emptyRunDecision, flights: [gate2] }, { generation: await generation(), stored: new Map([["900101", estt]]) });
      const afterGate = await collectionRows(t.db, "900101");
      expect(afterGate.find(([table]) => table === "DELY")).toEqual(written.find(([table]) => table === "DELY"));
      expect(afterGate.filter(([table]) => table === "GTDT").map(([, key, x, v]) => [key, x === written[1]![2], v])).toEqual([
        ["1", false, { GATE: "B7" }],
        ["2", false, { GATE: "B9" }],
      ]);

      // Not given the stored flight: every collection is rewritten, to the decided rows.
      await t.store.commitRun({ ...emptyRunDecision, flights: [{ ...first, stateVersion: 4 }] }, { generation: await generation() });
      const rewritten = await collectionRows(t.db, "900101");
      expect(rewritten.map(([table, key, , v]) => [table, key, v])).toEqual(written.map(([table, key, , v]) => [table, key, v]));
      const dely = (rows: typeof written) => rows.find(([table]) => table === "DELY")![2];
      expect(dely(rewritten)).not.toBe(dely(afterGate));
      expect((await t.store.loadRunState([], ["900101"])).flights.get("900101")).toEqual({ ...first, stateVersion: 4 });
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
