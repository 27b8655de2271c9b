import { randomBytes } from "node:crypto";
import type { Clock, LeaseStore } from "@msgx/core";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { RELIABLE_MESSAGE_MIGRATIONS } from "../src/reliable/index.js";
import { TASK_ROUTING_MIGRATIONS } from "../src/tasks/index.js";
import {
  ALL_MIGRATION_MODULES,
  bumpLeadershipEpoch,
  guardPool,
  prepareHotStatements,
  migrateToLatest,
  PgLeadership,
  PgLeaseStore,
  PgPipelineStore,
  pgPoolConfig,
  PGliteDialect,
  type PGliteLike,
} from "../src/index.js";

/** What a test schema holds: every table, as in the runner's database (flights, tasks, reliable messages). */
export const HOST_MIGRATIONS = [...ALL_MIGRATION_MODULES, TASK_ROUTING_MIGRATIONS, RELIABLE_MESSAGE_MIGRATIONS];

/** The test database (scripts/services creates it). */
export const PG_URL = process.env["MSGX_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/** Resolves when PostgreSQL answers; the service gate's probe. */
export async function probePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const randomSchema = (): string => `msgx_t_${randomBytes(5).toString("hex")}`;

/** A migrated schema of its own on the test database, with a store over a pool pointed at it. */
export interface PgTestDb {
  readonly schema: string;
  readonly db: Kysely<any>;
  readonly store: PgPipelineStore;
  bumpEpoch(): Promise<number>;
  /** A leadership elector on the schema's lease; `wrap` may stand between it and the store (a freeze). */
  leadership(holder: string, ttlMs?: number, wrap?: (store: PgLeaseStore) => LeaseStore): PgLeadership;
  /** Empties every table and restarts the sequences (cheaper than a new schema per property run). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function freshPgSchema(options: { readonly clock?: Clock; readonly max?: number } = {}): Promise<PgTestDb> {
  const schema = randomSchema();
  const config = pgPoolConfig({ connectionString: PG_URL, schema, max: options.max ?? 4 });
  // As createPgStores opens it: the statements it repeats prepared.
  const pool = prepareHotStatements(guardPool(new pg.Pool(config)));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  await migrateToLatest(db, { schema, modules: HOST_MIGRATIONS });
  const clock = options.clock ? { clock: options.clock } : {};
  const store = new PgPipelineStore(db, { lockNamespace: schema, ...clock });
  return {
    schema,
    db,
    store,
    bumpEpoch: () => bumpLeadershipEpoch(db, { lockNamespace: schema, ...clock }),
    leadership: (holder, ttlMs = 900, wrap = (store) => store) =>
      new PgLeadership({ store: wrap(new PgLeaseStore(db, { lockNamespace: schema })), holder, ttlMs }),
    reset: () => resetTables(db),
    async close() {
      await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db).catch(() => undefined);
      await db.destroy();
    },
  };
}

const DATA_TABLES = [
  "proc_state",
  "msg_identity",
  "msg_event",
  "backfill_todo",
  "intake_state",
  "replay_audit",
  "flight_schd",
  "flight_rout",
  "flight_erut",
  "flight_psdt",
  "flight_gtdt",
  "flight_ckdt",
  "flight_cldt",
  "flight_chdt",
  "flight_dely",
  "flight_chot",
  "flight_abtm",
  "flight_srvt",
  "flight_vipf",
  "flight_vipt",
];

async function resetTables(db: Kysely<any>): Promise<void> {
  await sql.raw(`TRUNCATE ${DATA_TABLES.join(", ")} RESTART IDENTITY`).execute(db);
  await sql`UPDATE leadership SET epoch = 0, holder = NULL, acquired_at = NULL, lease_until = NULL`.execute(db);
}

/** One in-memory PGlite instance shared by a spec; each factory call gets a schema of its own. */
export class SharedPglite {
  #pglite: PGliteLike | undefined;

  async open(): Promise<void> {
    const { PGlite } = await import("@electric-sql/pglite");
    this.#pglite = (await PGlite.create()) as unknown as PGliteLike;
  }

  async freshSchema(options: { readonly clock?: Clock } = {}): Promise<Omit<PgTestDb, "leadership">> {
    const schema = randomSchema();
    const pglite = this.#pglite!;
    // Not destroyed per schema: destroying the dialect would close the shared instance.
    const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
    await migrateToLatest(db, { schema, modules: HOST_MIGRATIONS });
    await sql`SET search_path TO ${sql.id(schema)}`.execute(db);
    const clock = options.clock ? { clock: options.clock } : {};
    return {
      schema,
      db,
      store: new PgPipelineStore(db, { lockNamespace: schema, ...clock }),
      bumpEpoch: () => bumpLeadershipEpoch(db, { lockNamespace: schema, ...clock }),
      reset: () => resetTables(db),
      close: async () => {
        await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
      },
    };
  }

  async close(): Promise<void> {
    await this.#pglite?.close();
  }
}
