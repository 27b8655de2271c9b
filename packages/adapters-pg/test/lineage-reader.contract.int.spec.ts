import { describeLineageReaderContract, gateService, ManualClock } from "@msgx/core/testing";
import { afterAll, beforeAll, describe } from "vitest";
import { PgLineageReader, PgMaintenanceStore, PgOutboxStore } from "../src/index.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: lineage-reader contract", probePostgres);

const fixture = (t: Omit<PgTestDb, "leadership">, clock: ManualClock) => ({
  reader: new PgLineageReader(t.db),
  store: t.store,
  outbox: new PgOutboxStore(t.db),
  maintenance: new PgMaintenanceStore(t.db, { clock, lockKeys: t.store.lockKeys }),
  close: t.close,
});

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  describeLineageReaderContract("PgLineageReader (PostgreSQL)", async () => {
    const clock = new ManualClock();
    return fixture(await freshPgSchema({ clock }), clock);
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
