import { systemClock, type Clock } from "@msgx/core";
import { Kysely } from "kysely";
import { migrateToLatest, type MigrationChoice } from "../migrations/migrate.js";
import { pgStoresOn, type PgStores } from "../pg-stores.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { loadPglite } from "./load-pglite.js";
import { PGliteDialect } from "./pglite-dialect.js";
import type { PGliteLike } from "./pglite-types.js";

/**
 * PostgreSQL settings of the embedded database, after PGlite's own. PostgreSQL's default 128 MB of
 * shared buffers is allocated and touched at start inside the WebAssembly memory, so all of it is
 * resident from the first second; the buffers are a cache in front of data files the OS caches as
 * well, and 16 MB serves an embedded database (a development day, a test).
 */
const EMBEDDED_SETTINGS = ["-c", "shared_buffers=16MB"];

/**
 * Every port on an embedded PGlite database: in memory without `dataDir`, else persisted there.
 * PGlite has no cross-process locking: the caller (the runner) must hold a lock file on `dataDir`
 * so that one process at a time opens it; that process leads (`bumpEpoch`), so there is no
 * `leadership`. `@electric-sql/pglite`, an optional peer, loads on demand (a CONFIG error if missing).
 */
export async function createPgliteStores(
  dataDir?: string,
  options: { readonly clock?: Clock; readonly modules?: readonly MigrationChoice[] } = {},
): Promise<PgStores> {
  const PGlite = await loadPglite();
  const pglite = (await PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS] })) as unknown as PGliteLike;
  const db = new Kysely<MsgxDatabase>({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrateToLatest(db, { schema: "public", modules: options.modules });
  } catch (e) {
    await db.destroy();
    throw e;
  }
  return { ...pgStoresOn(db, { clock: options.clock ?? systemClock }), close: () => db.destroy() };
}
