/**
 * Pipeline transactions are one writer at a time (the advisory lock on PostgreSQL, the single
 * session on PGlite): concurrent read-modify-write transactions never lose an update. And the
 * PGlite store persists in its data directory across reopen.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyRunDecision, ProcStatus, type PipelineStore } from "@msgx/core";
import { gateService, ManualClock } from "@msgx/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteStores } from "../src/index.js";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: one writer", probePostgres);
const T0 = Date.UTC(2026, 2, 5);

/** 20 concurrent transactions each add one attempt to message 1; all 20 must land. */
async function concurrentIncrements(store: PipelineStore): Promise<void> {
  await store.enqueue([{ msgId: 1, receivedAt: T0 }], { horizon: 1 });
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      store.transaction(async (tx) => {
        const [r] = await tx.loadRecords([1]);
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        await tx.applyRun({ ...emptyRunDecision, records: [{ ...r!, status: ProcStatus.FAILED, attempts: r!.attempts + 1 }] });
      }),
    ),
  );
  // Reads outside the transactions queue behind them and see committed state.
  expect((await store.get(1))?.attempts).toBe(20);
}

describe.skipIf(!gate.available)("one writer on PostgreSQL", () => {
  it("serializes concurrent pipeline transactions", async () => {
    const t = await freshPgSchema({ clock: new ManualClock(), max: 8 });
    try {
      await concurrentIncrements(t.store);
    } finally {
      await t.close();
    }
  });
});

describe("PGlite", () => {
  const shared = new SharedPglite();
  beforeAll(() => shared.open());
  afterAll(() => shared.close());

  it("serializes concurrent pipeline transactions and the reads beside them", async () => {
    const t = await shared.freshSchema({ clock: new ManualClock() });
    await Promise.all([concurrentIncrements(t.store), t.store.head(), t.store.list({})]);
    await t.close();
  });

  it("persists in its data directory and migrates only once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "msgx-pglite-"));
    try {
      const first = await createPgliteStores(dir, { clock: new ManualClock() });
      await first.store.enqueue([{ msgId: 5, receivedAt: T0 }], { horizon: 9 });
      expect(await first.bumpEpoch()).toBe(1);
      await first.close();
      const second = await createPgliteStores(dir, { clock: new ManualClock() });
      expect(await second.store.intakeState()).toEqual({ horizon: 9 });
      expect((await second.store.head())?.msgId).toBe(5);
      expect(await second.bumpEpoch()).toBe(2);
      await expect(second.store.transaction(async () => 1, { fence: 1 })).rejects.toMatchObject({ kind: "FENCED" });
      await second.close();
      await expect(second.store.head()).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
