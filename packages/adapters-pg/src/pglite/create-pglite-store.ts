import type { Clock } from "@msgx/core";
import { Kysely } from "kysely";
import { migrateToLatest } from "../migrations/migrate.js";
import { bumpLeadershipEpoch } from "../pg-leadership.js";
import { PgFlightReader } from "../pg-flight-reader.js";
import { PgOutboxStore } from "../pg-outbox-store.js";
import { PgPipelineStore } from "../pg-pipeline-store.js";
import { PGliteDialect } from "./pglite-dialect.js";
import type { PGliteLike } from "./pglite-types.js";

export interface PgliteStoreHandle {
  readonly store: PgPipelineStore;
  readonly outbox: PgOutboxStore;
  readonly flights: PgFlightReader;
  readonly db: Kysely<any>;
  /** Bumps the leadership epoch (one process leads a PGlite data directory; see the docs). */
  bumpEpoch(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The pipeline store on an embedded PGlite database: in memory without `dataDir`, else persisted
 * there. PGlite has no cross-process locking: the caller (the runner) must hold a lock file on
 * `dataDir` so that one process at a time opens it. `@electric-sql/pglite` loads on demand.
 */
export async function createPgliteStore(dataDir?: string, options: { readonly clock?: Clock } = {}): Promise<PgliteStoreHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = (await PGlite.create(dataDir)) as unknown as PGliteLike;
  const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrateToLatest(db, { schema: "public" });
  } catch (e) {
    await db.destroy();
    throw e;
  }
  const clockOption = options.clock ? { clock: options.clock } : {};
  return {
    store: new PgPipelineStore(db, clockOption),
    outbox: new PgOutboxStore(db),
    flights: new PgFlightReader(db),
    db,
    bumpEpoch: () => bumpLeadershipEpoch(db, clockOption),
    close: () => db.destroy(),
  };
}
