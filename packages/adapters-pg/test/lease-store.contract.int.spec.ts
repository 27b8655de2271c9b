/** The pipeline lease (issue 24) on PostgreSQL and PGlite: the LeaseStore contract, and how it meets the pipeline lock. */
import { describeLeaseStoreContract, gateService } from "@msgx/core/testing";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardPool, PgLeaseStore, PgPipelineStore, pgPoolConfig } from "../src/index.js";
import { freshPgSchema, PG_URL, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: lease store", probePostgres);

type TestDb = Omit<PgTestDb, "leadership">;

const leaseFixture = (t: TestDb) => ({
  store: new PgLeaseStore(t.db, { lockNamespace: t.schema }),
  now: async () => Number((await sql<{ now: string }>`SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now`.execute(t.db)).rows[0]!.now),
  lapse: async () => void (await sql`UPDATE leadership SET lease_until = clock_timestamp() - interval '1 millisecond' WHERE lease_until IS NOT NULL`.execute(t.db)),
  close: t.close,
});

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  describeLeaseStoreContract("PgLeaseStore (PostgreSQL)", async () => leaseFixture(await freshPgSchema()));

  describe("and the pipeline lock", () => {
    let t: PgTestDb;
    beforeAll(async () => {
      t = await freshPgSchema({ max: 4 });
    });
    afterAll(() => t.close());

    it("a standby's poll while the lease runs never waits for the pipeline lock; a takeover waits for the leader's open transaction, then fences it", async () => {
      const store = new PgLeaseStore(t.db, { lockNamespace: t.schema });
      const a = (await store.tryAcquire("A", 60_000))!;
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const lockTaken = new Promise<void>((r) => (locked = r));
      // The leader inside a pipeline transaction (it holds the pipeline lock) with its fence.
      const leaderTx = t.store.transaction(
        async () => {
          locked();
          await held;
        },
        { fence: a.epoch },
      );
      await lockTaken;
      expect(await store.tryAcquire("B", 60_000)).toBeUndefined();
      await sql`UPDATE leadership SET lease_until = clock_timestamp() - interval '1 millisecond'`.execute(t.db);
      let granted: number | undefined;
      const takeover = store.tryAcquire("B", 60_000).then((g) => (granted = g?.epoch));
      await new Promise((r) => setTimeout(r, 200));
      expect(granted).toBeUndefined();
      release();
      await leaderTx;
      await takeover;
      expect(granted).toBe(a.epoch + 1);
      await expect(t.store.transaction(async () => undefined, { fence: a.epoch })).rejects.toMatchObject({ kind: "FENCED" });
    });

    it("a leader frozen inside a pipeline transaction holds the takeover only until the server's idle_in_transaction_session_timeout ends its session", async () => {
      const store = new PgLeaseStore(t.db, { lockNamespace: t.schema });
      await sql`UPDATE leadership SET lease_until = NULL`.execute(t.db);
      const a = (await store.tryAcquire("A", 60_000))!;
      // The leader's own pool, with the timeout the runner derives from its lease (ttl/2).
      const pool = guardPool(new pg.Pool(pgPoolConfig({ connectionString: PG_URL, schema: t.schema, max: 1, idleInTransactionTimeoutMs: 300 })));
      const leaderDb = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
      try {
        const leader = new PgPipelineStore(leaderDb, { lockNamespace: t.schema });
        const order: string[] = [];
        let locked!: () => void;
        const lockTaken = new Promise<void>((r) => (locked = r));
        const frozen = leader
          .transaction(
            async () => {
              locked();
              await new Promise((r) => setTimeout(r, 5_000)); // frozen, its transaction idle and open
              order.push("leader woke");
            },
            { fence: a.epoch },
          )
          .then(
            () => order.push("leader committed"),
            (e: unknown) => order.push(`leader refused: ${(e as { kind?: string }).kind}`),
          );
        await lockTaken;
        await sql`UPDATE leadership SET lease_until = clock_timestamp() - interval '1 millisecond'`.execute(t.db);
        const b = await store.tryAcquire("B", 60_000);
        order.push("standby leads");
        await frozen;
        expect(b?.epoch).toBe(a.epoch + 1);
        expect(order[0]).toBe("standby leads");
        expect(order).not.toContain("leader committed");
      } finally {
        await leaderDb.destroy();
      }
    });
  });
});

describe("on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeLeaseStoreContract("PgLeaseStore (PGlite)", async () => leaseFixture(await pglite.freshSchema()));
});
