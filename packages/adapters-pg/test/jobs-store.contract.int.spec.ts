import { gateService, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe } from "vitest";
// Not in the @msgx/core/testing barrel yet: imported by path until the export lines are added.
import { describeMaintenanceStoreContract, type MaintenanceStoreHarness } from "../../core/src/jobs/maintenance-store.contract.js";
import { PgMaintenanceStore } from "../src/jobs/pg-maintenance-store.js";
import { PgOutboxStore, type PgPipelineStore } from "../src/index.js";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: maintenance store contract", probePostgres);

/** The contract's harness over a migrated schema: the maintenance store shares the pipeline's lock keys. */
function harness(t: { db: Kysely<any>; store: PgPipelineStore; bumpEpoch(): Promise<number>; close(): Promise<void> }, clock: ManualClock): MaintenanceStoreHarness {
  return {
    store: new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys }),
    pipeline: t.store,
    outbox: new PgOutboxStore(t.db),
    bumpEpoch: t.bumpEpoch,
    logSnapshots: async (loggedAt) => {
      for (const at of loggedAt) {
        await sql`INSERT INTO schd_snap_log (msg_id, styp, flights, outcome, logged_at)
                  VALUES (1, 'DNLD', 0, 'SUCCEEDED', to_timestamp(${at}::bigint / 1000.0))`.execute(t.db);
      }
    },
    snapLogCount: async () => {
      const { rows } = await sql<{ n: unknown }>`SELECT count(*) AS n FROM schd_snap_log`.execute(t.db);
      return Number(rows[0]?.n ?? 0);
    },
    close: t.close,
  };
}

describe.skipIf(!gate.available)("PgMaintenanceStore on PostgreSQL", () => {
  describeMaintenanceStoreContract("PgMaintenanceStore (PostgreSQL, fresh schema per test)", async () => {
    const clock = new ManualClock();
    return harness(await freshPgSchema({ clock }), clock);
  });
});

describe("PgMaintenanceStore on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeMaintenanceStoreContract("PgMaintenanceStore (PGlite in memory, fresh schema per test)", async () => {
    const clock = new ManualClock();
    return harness(await pglite.freshSchema({ clock }), clock);
  });
});
