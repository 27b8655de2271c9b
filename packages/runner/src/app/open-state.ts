import { join } from "node:path";
import { ALL_MIGRATION_MODULES, createPgliteStores, createPgStores, type PgStores } from "@msgx/adapters-pg";
import { RELIABLE_MESSAGE_MIGRATIONS } from "@msgx/adapters-pg/reliable";
import { TASK_ROUTING_MIGRATIONS } from "@msgx/adapters-pg/tasks";
import type { Clock } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { initPgliteDataDir } from "../embedded/pglite-data-dir.js";
import type { PartClosers } from "./part-closers.js";

/** The runner hosts the task and reliable-message services: their tables come with the flight ones. */
const MODULES = [...ALL_MIGRATION_MODULES, TASK_ROUTING_MIGRATIONS, RELIABLE_MESSAGE_MIGRATIONS];

/** msgx's own state: PostgreSQL at `pg.url`, else PGlite in the data directory. */
export async function openState(config: MsgxConfig, clock: Clock, closers: PartClosers): Promise<PgStores> {
  const pg = config.pg.url === undefined ? await openPglite(join(config.dataDir, "pglite"), clock) : await openPostgres(config, config.pg.url, clock);
  closers.add(() => pg.close());
  return pg;
}

async function openPglite(dir: string, clock: Clock): Promise<PgStores> {
  await initPgliteDataDir(dir);
  return createPgliteStores(dir, { clock, modules: MODULES });
}

function openPostgres(config: MsgxConfig, url: string, clock: Clock): Promise<PgStores> {
  return createPgStores({
    connectionString: url,
    schema: config.pg.schema,
    max: config.pg.poolSize,
    preparedStatements: config.pg.preparedStatements,
    // A leader frozen inside a transaction holds the pipeline lock: the server ends its
    // session before the lease lapses, so the standby's takeover never waits on it.
    idleInTransactionTimeoutMs: Math.min(60_000, Math.floor(config.pg.leaseTtlMs / 2)),
    clock,
    modules: MODULES,
  });
}
