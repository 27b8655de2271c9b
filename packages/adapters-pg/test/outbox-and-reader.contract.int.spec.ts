import { emptyRunDecision, type FlightState } from "@msgx/core";
import { describeFlightReaderContract, describeOutboxStoreContract, gateService, ManualClock } from "@msgx/core/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe } from "vitest";
import { PgFlightReader, PgOutboxStore, type MsgxDatabase } from "../src/index.js";
import { insertEvents } from "../src/queries/msg-event.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: outbox-store and flight-reader contracts", probePostgres);

const outboxSubject = (t: Omit<PgTestDb, "leadership">, clock: ManualClock) => {
  const outbox = new PgOutboxStore(t.db);
  return {
    outbox,
    // As the pipeline writes them (the same statement applyRun uses), then read back.
    seed: async (drafts: Parameters<typeof insertEvents>[1]) =>
      [...(await outbox.get(await insertEvents(t.db as Kysely<MsgxDatabase>, drafts, clock.now())))],
    close: t.close,
  };
};

const readerFixture = (t: Omit<PgTestDb, "leadership">) => ({
  reader: new PgFlightReader(t.db),
  seed: (flights: readonly FlightState[]) =>
    t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights })),
  close: t.close,
});

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  describeOutboxStoreContract("PgOutboxStore (PostgreSQL)", async () => {
    const clock = new ManualClock();
    return outboxSubject(await freshPgSchema({ clock }), clock);
  });
  describeFlightReaderContract("PgFlightReader (PostgreSQL)", async () => readerFixture(await freshPgSchema()));
});

describe("on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeOutboxStoreContract("PgOutboxStore (PGlite)", async () => {
    const clock = new ManualClock();
    return outboxSubject(await pglite.freshSchema({ clock }), clock);
  });
  describeFlightReaderContract("PgFlightReader (PGlite)", async () => readerFixture(await pglite.freshSchema()));
});
