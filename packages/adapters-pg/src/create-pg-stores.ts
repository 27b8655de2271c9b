import { systemClock, type Clock } from "@msgx/core";
import { Kysely, PostgresDialect } from "kysely";
import { migrateToLatest, type MigrationChoice } from "./migrations/migrate.js";
import { PgLeadership } from "./pg-leadership.js";
import { PgLeaseStore } from "./pg-lease-store.js";
import { guardPool, pgPoolConfig, type PgConnectionOptions } from "./pg-pool-config.js";
import { HotStatements, prepareHotStatements } from "./prepared-statements.js";
import { pgStoresOn, type PgStores } from "./pg-stores.js";
import type { MsgxDatabase } from "./rows/tables.js";

export interface CreatePgStoresOptions extends PgConnectionOptions {
  /** The one clock of every store. Default: the system clock. */
  readonly clock?: Clock;
  /** Run the migrations first. Default true. */
  readonly migrate?: boolean;
  /**
   * What to migrate (`migrateToLatest`'s `modules`): default the main entry's modules; a host of
   * task routing or reliable messages adds the sets of those subpaths.
   */
  readonly modules?: readonly MigrationChoice[];
  /** Advisory lock namespace. Default: the schema name. */
  readonly lockNamespace?: string;
}

/**
 * Opens a pg pool with msgx's timeouts and search path, migrates, and builds every port on it.
 * `pg` is loaded here, on demand: it is a peer dependency, needed only by callers of this function.
 */
export async function createPgStores(options: CreatePgStoresOptions = {}): Promise<PgStores> {
  const pg = (await import("pg")).default;
  const config = pgPoolConfig(options, pg);
  const schema = options.schema ?? "public";
  const lockNamespace = options.lockNamespace ?? schema;
  const clock = options.clock ?? systemClock;
  // Each pool names its own hot statements (`HotStatements`), unless turned off for a pooler.
  const opened = (p: InstanceType<typeof pg.Pool>) => {
    guardPool(p);
    if (options.preparedStatements !== false) prepareHotStatements(p, new HotStatements());
    return p;
  };
  const pool = opened(new pg.Pool(config));
  const db = new Kysely<MsgxDatabase>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (options.migrate !== false) await migrateToLatest(db, { schema, modules: options.modules });
  } catch (e) {
    await db.destroy();
    throw e;
  }
  const stores = pgStoresOn(db, { clock, lockNamespace });
  // The leader's renewals get a connection of their own: they never queue behind the pipeline's
  // work for a pooled one, which could outlast the lease's window on a saturated pool.
  const leaseDbs: Kysely<MsgxDatabase>[] = [];
  return {
    ...stores,
    leadership: (o = {}) => {
      const leaseDb = new Kysely<MsgxDatabase>({ dialect: new PostgresDialect({ pool: opened(new pg.Pool({ ...config, max: 1 })) }) });
      leaseDbs.push(leaseDb);
      return new PgLeadership({ store: new PgLeaseStore(leaseDb, { lockNamespace }), ...o });
    },
    close: async () => {
      await Promise.all(leaseDbs.splice(0).map((d) => d.destroy()));
      await db.destroy();
    },
  };
}
