/**
 * A pipeline transaction in three round trips when the pump reads a run's identity owners and
 * flights together: BEGIN with the lock, epoch and fence; one statement for the owners and the
 * flights (`loadRunState`); COMMIT. What it reads equals what the two methods read apart, and the
 * flights are locked — on PostgreSQL and PGlite.
 */
import { emptyRunDecision } from "@msgx/core";
import { gateService, sampleFlight } from "@msgx/core/testing";
import { sql, type KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgPipelineStore } from "../src/pg-pipeline-store.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: run state in one statement", probePostgres);

/** The statements sent through it (their syntax trees as text). */
function counter(): { plugin: KyselyPlugin; sent: string[] } {
  const sent: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      sent.push(JSON.stringify(args.node));
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { plugin, sent };
}

function suite(open: () => Promise<Omit<PgTestDb, "leadership">>, lockedElsewhere?: (t: Omit<PgTestDb, "leadership">, flid: string) => Promise<boolean>) {
  it("answers owners and flights asked together with one statement, as they read apart, the flights locked", async () => {
    const t = await open();
    try {
      const stored = sampleFlight("900301", 2);
      await t.store.transaction((tx) =>
        tx.applyRun({
          ...emptyRunDecision,
          flights: [stored],
          bindings: [
            { identityKey: "k1", msgId: 7, contentHash: "h7" },
            { identityKey: "k2", msgId: 8 },
          ],
        }),
      );
      const keys = ["k1", "k2", "k3"];
      const flids = ["900301", "900399"];
      const apart = await t.store.transaction(async (tx) => [await tx.identityOwners(keys), await tx.loadFlights(flids)] as const);

      const { plugin, sent } = counter();
      const store = new PgPipelineStore(t.db.withPlugin(plugin), { lockNamespace: t.schema });
      const together = await store.transaction(async (tx) => {
        const read = await Promise.all([tx.identityOwners(keys), tx.loadFlights(flids)]);
        if (lockedElsewhere) expect(await lockedElsewhere(t, "900301")).toBe(true);
        return read;
      });
      expect(together).toEqual(apart);
      expect(together[0]).toEqual(
        new Map([
          ["k1", { msgId: 7, contentHash: "h7", boundAt: expect.any(Number) }],
          ["k2", { msgId: 8, contentHash: null, boundAt: expect.any(Number) }],
        ]),
      );
      expect([...together[1].keys()]).toEqual(["900301"]);
      // BEGIN with the pipeline entry; owners and flights; COMMIT (900399 was never stored or
      // retired, so its history lookup is the one extra statement).
      expect(sent).toHaveLength(4);
      expect(sent.filter((q) => q.includes("msg_identity") && q.includes("flight_schd"))).toHaveLength(1);

      // Asked for owners only, or with no flight stored, it still answers.
      const onlyMissing = await t.store.transaction((tx) => Promise.all([tx.identityOwners(["k2"]), tx.loadFlights(["900398"])]));
      expect(onlyMissing).toEqual([new Map([["k2", { msgId: 8, contentHash: null, boundAt: expect.any(Number) }]]), new Map()]);
      const none = await t.store.transaction((tx) => Promise.all([tx.identityOwners(["k9"]), tx.loadFlights(["900301"])]));
      expect(none[0]).toEqual(new Map());
      expect(none[1].get("900301")).toEqual(stored);
    } finally {
      await t.close();
    }
  });
}

describe.skipIf(!gate.available)("run state on PostgreSQL", () => {
  suite(
    () => freshPgSchema(),
    // Another session cannot lock the flight while the transaction holds it.
    (t, flid) =>
      t.db.connection().execute(async (other) => {
        await sql`SET lock_timeout = '50ms'`.execute(other);
        try {
          await sql`SELECT 1 FROM flight_schd WHERE flid = ${flid} FOR UPDATE`.execute(other);
          return false;
        } catch (e) {
          return (e as { code?: string }).code === "55P03";
        } finally {
          await sql`RESET lock_timeout`.execute(other);
        }
      }),
  );
});

describe("run state on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  suite(() => pglite.freshSchema());
});
