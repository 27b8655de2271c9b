import { describeLineageReaderContract, gateService, ManualClock } from "@msgx/core/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgLineageReader, PgMaintenanceStore, PgOutboxStore } from "../src/index.js";
import { lineageStatement } from "../src/queries/lineage.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: lineage-reader contract", probePostgres);

const fixture = (t: Omit<PgTestDb, "leadership">, clock: ManualClock) => ({
  reader: new PgLineageReader(t.db),
  store: t.store,
  outbox: new PgOutboxStore(t.db),
  maintenance: new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys }),
  close: t.close,
});

/** Every node of an `EXPLAIN (FORMAT JSON)` plan. */
const planNodes = (node: Record<string, unknown>): Record<string, unknown>[] => [node, ...((node["Plans"] as Record<string, unknown>[] | undefined) ?? []).flatMap(planNodes)];

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  describeLineageReaderContract("PgLineageReader (PostgreSQL)", async () => {
    const clock = new ManualClock();
    return fixture(await freshPgSchema({ clock }), clock);
  });

  it("reads a key's events through msg_event_key_idx, never a scan of the whole outbox", async () => {
    const t = await freshPgSchema();
    try {
      // 40,000 events of 2,000 flights (10 versions, two targets each) and their records.
      await sql`INSERT INTO msg_event (target, partition_key, event_type, state_version, payload, source_msg_id, status, created_at)
        SELECT tg, (900000 + g % 2000)::text, 'UPSERT', g / 2000 + 1, '{"a":1}', g + 1, 'SENT', now()
        FROM generate_series(0, 19999) g, unnest(ARRAY['KAFKA:msg', 'KAFKA:schd']) tg`.execute(t.db);
      await sql`INSERT INTO proc_state (msg_id, status, received_at, updated_at) SELECT g, 'SUCCEEDED', now(), now() FROM generate_series(1, 20000) g`.execute(t.db);
      await sql`ANALYZE msg_event`.execute(t.db);
      await sql`ANALYZE proc_state`.execute(t.db);
      const { rows } = await sql<{ "QUERY PLAN": [{ Plan: Record<string, unknown> }] }>`EXPLAIN (FORMAT JSON) ${lineageStatement("900101", 51)}`.execute(t.db);
      const nodes = planNodes(rows[0]!["QUERY PLAN"][0].Plan);
      expect(nodes.filter((n) => n["Relation Name"] === "msg_event" && n["Node Type"] === "Seq Scan")).toEqual([]);
      expect(nodes.filter((n) => n["Index Name"] === "msg_event_key_idx").length).toBeGreaterThanOrEqual(1);
      const page = await new PgLineageReader(t.db).flightLineage("900101", { limit: 4 });
      expect(page.versions.map((v) => [v.version, v.source?.msgId, v.events.length])).toStrictEqual([10, 9, 8, 7].map((v) => [v, (v - 1) * 2000 + 102, 2]));
      expect(page.next).toBe(7);
    } finally {
      await t.close();
    }
  });
});

describe("on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeLineageReaderContract("PgLineageReader (PGlite)", async () => {
    const clock = new ManualClock();
    return fixture(await pglite.freshSchema({ clock }), clock);
  });
});
