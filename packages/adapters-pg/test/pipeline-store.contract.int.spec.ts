import { describePipelineStoreContract, gateService, ManualClock } from "@msgx/core/testing";
import { afterAll, beforeAll, describe } from "vitest";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: pipeline-store contract", probePostgres);

describe.skipIf(!gate.available)("PgPipelineStore on PostgreSQL", () => {
  describePipelineStoreContract("PgPipelineStore (PostgreSQL, fresh schema per test)", async () => {
    const t = await freshPgSchema({ clock: new ManualClock() });
    return { store: t.store, bumpEpoch: t.bumpEpoch, close: t.close };
  });
});

describe("PgPipelineStore on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describePipelineStoreContract("PgPipelineStore (PGlite in memory, fresh schema per test)", async () => {
    const t = await pglite.freshSchema({ clock: new ManualClock() });
    return { store: t.store, bumpEpoch: t.bumpEpoch, close: t.close };
  });
});
