import type { Clock } from "@msgx/core";
import { Kysely, PostgresDialect } from "kysely";
import { migrateToLatest } from "./migrations/migrate.js";
import { bumpLeadershipEpoch, PgLeadership, type LeadershipClient } from "./pg-leadership.js";
import { PgFlightReader } from "./pg-flight-reader.js";
import { PgOutboxStore } from "./pg-outbox-store.js";
import { PgPipelineStore } from "./pg-pipeline-store.js";
import { guardPool, pgPoolConfig, type PgConnectionOptions } from "./pg-pool-config.js";

export interface CreatePgStoreOptions extends PgConnectionOptions {
  readonly clock?: Clock;
  /** Run the migrations first. Default true. */
  readonly migrate?: boolean;
  /** Advisory lock namespace. Default: the schema name. */
  readonly lockNamespace?: string;
}

/** A PostgreSQL-backed store with its pool, ready to use. */
export interface PgStoreHandle {
  readonly store: PgPipelineStore;
  readonly outbox: PgOutboxStore;
  readonly flights: PgFlightReader;
  readonly db: Kysely<any>;
  /** A leadership elector on its own dedicated connection, same database, same lock namespace. */
  leadership(options?: { readonly holder?: string; readonly heartbeatMs?: number }): PgLeadership;
  /** Bumps the epoch as a new leader would (tests, tools). */
  bumpEpoch(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens a pg pool with msgx's timeouts and search path, migrates, and builds the store. `pg` is
 * loaded here, on demand: it is a peer dependency, needed only by callers of this function.
 */
export async function createPgStore(options: CreatePgStoreOptions = {}): Promise<PgStoreHandle> {
  const pg = (await import("pg")).default;
  const config = pgPoolConfig(options);
  const schema = options.schema ?? "public";
  const lockNamespace = options.lockNamespace ?? schema;
  const pool = guardPool(new pg.Pool(config));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (options.migrate !== false) await migrateToLatest(db, { schema });
  } catch (e) {
    await db.destroy();
    throw e;
  }
  const clock = options.clock;
  const store = new PgPipelineStore(db, { lockNamespace, ...(clock ? { clock } : {}) });
  return {
    store,
    outbox: new PgOutboxStore(db),
    flights: new PgFlightReader(db),
    db,
    leadership: (o = {}) =>
      new PgLeadership({
        client: () => new pg.Client(config) as unknown as LeadershipClient,
        lockNamespace,
        ...o,
        ...(clock ? { clock } : {}),
      }),
    bumpEpoch: () => bumpLeadershipEpoch(db, { lockNamespace, ...(clock ? { clock } : {}) }),
    close: () => db.destroy(),
  };
}
