import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
} from "kysely";
import { PGliteDriver, type PGliteDialectConfig } from "./pglite-driver.js";

/**
 * PostgreSQL's adapter, minus the migration lock: PGlite has one session, which the migrator
 * already holds from lock to unlock (kysely 0.29's PGliteAdapter does the same).
 */
export class PGliteAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

/**
 * A kysely dialect over an in-process `@electric-sql/pglite` 0.5 instance, modeled on kysely
 * 0.29's `PGliteDialect` (which needs Node 22): PostgreSQL's query compiler and introspector,
 * a driver with one connection whose users queue.
 */
export class PGliteDialect implements Dialect {
  readonly #config: PGliteDialectConfig;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#config);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PGliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

export type { PGliteDialectConfig } from "./pglite-driver.js";
