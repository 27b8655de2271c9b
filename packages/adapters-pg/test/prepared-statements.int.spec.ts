/**
 * `prepareHotStatements`: the statements a pool repeats run as named statements, parsed once per
 * connection; a query without parameters keeps the simple protocol; a text PostgreSQL refuses to
 * run prepared after its result columns changed is run unnamed from then on.
 */
import { gateService } from "@msgx/core/testing";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgStores, guardPool, HotStatements, mapPgError, pgPoolConfig, prepareHotStatements, type PgStores } from "../src/index.js";
import { PG_URL, probePostgres, randomSchema } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: prepared statements", probePostgres);

/** The statements prepared on the pool's one connection, as PostgreSQL lists them. */
const prepared = async (db: Kysely<any>) =>
  (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(db)).rows;

describe.skipIf(!gate.available)("prepared statements (PostgreSQL)", () => {
  const schema = randomSchema();
  let stores: PgStores;
  beforeAll(async () => {
    stores = await createPgStores({ connectionString: PG_URL, schema, max: 1 });
  });
  afterAll(async () => {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(stores.db).catch(() => undefined);
    await stores.close();
  });

  it("runs the intake's enqueue as one named statement from its second call on, the same one every time after", async () => {
    const enqueue = (id: number) => stores.store.enqueue([{ msgId: id, receivedAt: 0 }], { horizon: id });
    await enqueue(1);
    const isEnqueue = (s: { statement: string }) => s.statement.includes("INSERT INTO proc_state");
    expect((await prepared(stores.db)).filter(isEnqueue)).toEqual([]);
    await enqueue(2);
    const after2 = (await prepared(stores.db)).filter(isEnqueue);
    expect(after2).toHaveLength(1);
    expect(after2[0]!.name).toMatch(/^msgx_[0-9a-f]{24}$/);
    for (let id = 3; id <= 10; id++) await enqueue(id);
    expect((await prepared(stores.db)).filter(isEnqueue)).toEqual(after2);
    expect((await stores.store.unfinished(0, 100)).map((r) => r.msgId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("prepares nothing with preparedStatements false", async () => {
    const off = await createPgStores({ connectionString: PG_URL, schema, max: 1, migrate: false, preparedStatements: false });
    try {
      for (let id = 11; id <= 13; id++) await off.store.enqueue([{ msgId: id, receivedAt: 0 }], { horizon: id });
      expect(await prepared(off.db)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(!gate.available)("prepareHotStatements on a bare pool", () => {
  const schema = randomSchema();
  const hot = new HotStatements();
  let db: Kysely<any>;
  beforeAll(async () => {
    const pool = prepareHotStatements(guardPool(new pg.Pool(pgPoolConfig({ connectionString: PG_URL, schema, max: 1 }))), hot);
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
    await sql`CREATE TABLE t (a integer)`.execute(db);
  });
  afterAll(async () => {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db).catch(() => undefined);
    await db.destroy();
  });

  it("keeps a message of several statements without parameters on the simple protocol", async () => {
    const r = await sql`BEGIN; INSERT INTO t VALUES (1); COMMIT`.execute(db);
    expect(r.rows).toEqual([]);
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM t`.execute(db)).rows).toEqual([{ n: 1 }]);
  });

  it("follows a table dropped and made again under a prepared statement, and runs unnamed a text whose result columns changed", async () => {
    const read = () => sql<Record<string, unknown>>`SELECT * FROM t WHERE a = ${1}`.execute(db).then((r) => r.rows);
    expect(await read()).toEqual([{ a: 1 }]);
    expect(await read()).toEqual([{ a: 1 }]);
    expect(hot.size).toBe(1);
    // Dropped and made again with the same columns: PostgreSQL plans the statement anew.
    await sql`DROP TABLE t; CREATE TABLE t (a integer); INSERT INTO t VALUES (1)`.execute(db);
    expect(await read()).toEqual([{ a: 1 }]);
    // A column more: the prepared statement's result would change, which PostgreSQL refuses once.
    await sql`ALTER TABLE t ADD COLUMN b integer`.execute(db);
    await expect(read()).rejects.toThrow(/cached plan must not change result type/);
    expect(hot.size).toBe(0);
    expect(await read()).toEqual([{ a: 1, b: null }]);
    expect(await read()).toEqual([{ a: 1, b: null }]);
  });

  it("names the setting when a prepared statement is gone from the server (what a pooler in transaction mode does)", async () => {
    const count = () => sql<{ n: number }>`SELECT count(*)::int AS n FROM t WHERE a > ${0}`.execute(db);
    await count();
    await count();
    await sql`DEALLOCATE ALL`.execute(db);
    const e = await count().then(
      () => undefined,
      (err: unknown) => mapPgError(err, "count"),
    );
    expect(e?.kind).toBe("CONFIG");
    expect(e?.message).toContain("pg.preparedStatements");
  });
});
