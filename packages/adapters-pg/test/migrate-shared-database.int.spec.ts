/**
 * Migrating on a shared database: kysely's migrator reads the catalog of every schema, so another
 * client creating and dropping schemas at the same moment (a neighbour's tests, another
 * deployment's cleanup) can fail those reads with "schema … does not exist". That is not our
 * schema's fault and must not fail our start.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { gateService } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { migrateToLatest, pgPoolConfig } from "../src/index.js";
import { PG_URL, probePostgres, randomSchema } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: migrate on a shared database", probePostgres);

describe.skipIf(!gate.available)("migrateToLatest on a database where others drop schemas meanwhile", () => {
  it("migrates every schema while a neighbour churns schemas with tables", async () => {
    const neighbour = new pg.Client({ connectionString: PG_URL });
    await neighbour.connect();
    let churning = true;
    const churned = (async () => {
      let n = 0;
      while (churning) {
        const s = `${randomSchema()}_churn`;
        await neighbour.query(`CREATE SCHEMA ${s}; CREATE TABLE ${s}.a (id int primary key, v text); CREATE TABLE ${s}.b (id int references ${s}.a)`);
        await neighbour.query(`DROP SCHEMA ${s} CASCADE`);
        n += 1;
      }
      return n;
    })();
    const schemas = Array.from({ length: 4 }, () => randomSchema());
    const dbs = schemas.map((schema) => new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool(pgPoolConfig({ connectionString: PG_URL, schema, max: 2 })) }) }));
    try {
      for (const [i, db] of dbs.entries()) await migrateToLatest(db, { schema: schemas[i]! });
      for (const [i, db] of dbs.entries()) {
        const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = ${schemas[i]!}`.execute(db);
        expect(n.rows[0]!.n).toBeGreaterThan(20);
      }
    } finally {
      churning = false;
      expect(await churned).toBeGreaterThan(0);
      await neighbour.end();
      for (const [i, db] of dbs.entries()) {
        await sql`DROP SCHEMA IF EXISTS ${sql.id(schemas[i]!)} CASCADE`.execute(db).catch(() => undefined);
        await db.destroy();
      }
    }
  }, 120_000);
});
