import { systemClock, type Clock } from "@msgx/core";
import { Kysely, PostgresDialect } from "kysely";
import { migrateToLatest } from "./migrations/migrate.js";
import { PgLeadership, type LeadershipClient } from "./pg-leadership.js";
import { guardPool, pgPoolConfig, type PgConnectionOptions } from "./pg-pool-config.js";
import { pgStoresOn, type PgStores } from "./pg-stores.js";
import type { MsgxDatabase } from "./rows/tables.js";

export interface CreatePgStoresOptions extends PgConnectionOptions {
  /** The one clock of every store and of leadership. Default: the system clock. */
  readonly clock?: Clock;
  /** Run the migrations first. Default true. */
  readonly migrate?: boolean;
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
  // A multi-host URL's config carries the Client that picks the host (pgPoolConfig).
  const Client = (config["Client"] ?? pg.Client) as typeof pg.Client;
  const schema = options.schema ?? "public";
  const lockNamespace = options.lockNamespace ?? schema;
  const clock = options.clock ?? systemClock;
  const pool = guardPool(new pg.Pool(config));
  const db = new Kysely<MsgxDatabase>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (options.migrate !== false) await migrateToLatest(db, { schema });
  } catch (e) {
    await db.destroy();
    throw e;
  }
  return {
    ...pgStoresOn(db, { clock, lockNamespace }),
    leadership: (o = {}) =>
      new PgLeadership({
        client: () => new Client(config) as unknown as LeadershipClient,
        lockNamespace,
        ...o,
        clock,
      }),
    close: () => db.destroy(),
  };
}
