import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, type SchemaMetadata, type TableMetadata } from "kysely";
import { pipelineMigration } from "./0001-pipeline.js";
import { flightsMigration } from "./0002-flights.js";
import { requestsReferenceMigration } from "./0003-requests-reference.js";
import { readerIndexesMigration } from "./0004-reader-indexes.js";
import { maintenanceMigration } from "./0007-maintenance.js";
import { requestsMigration } from "./0008-requests.js";
import { outboxJsonMigration } from "./0009-outbox-json.js";
import { flightCollectionsMigration } from "./0010-flight-collections.js";
import { referenceDataMigration } from "./0011-reference-data.js";
import { identityContentMigration } from "./0012-identity-content.js";
import { procTraceMigration } from "./0014-proc-trace.js";
import { outboxHeadersMigration } from "./0013-outbox-headers.js";
import { lineageMigration } from "./0018-lineage.js";
import { consoleMigration } from "./0019-console.js";
import { leadershipLeaseMigration } from "./0020-leadership-lease.js";
import { pipelineEnterMigration } from "./0021-pipeline-enter.js";
import { recentFlightsMigration } from "./0022-recent-flights.js";
import { stateGenerationMigration } from "./0032-state-generation.js";
import { sentLogMigration } from "./0033-sent-log.js";
import { commitRunCollectionsMigration } from "./0034-commit-run-collections.js";
import { commitRunEventIdsMigration } from "./0035-commit-run-event-ids.js";

/** The migration bookkeeping tables, beside the msgx tables in the same schema. */
export const MIGRATION_TABLE = "msgx_migration";
export const MIGRATION_LOCK_TABLE = "msgx_migration_lock";

/** How a migration of one version is made for a schema. */
export type MigrationFactory = (schema: string) => Migration;

/**
 * A migration set a package contributes beyond the main entry's modules: named after the module
 * whose stores use its tables, its migrations keyed by the version names deployed databases hold.
 * `@msgx/adapters-pg/tasks` and `@msgx/adapters-pg/reliable` export theirs, so that only a database
 * that hosts those products gets their tables.
 */
export interface MigrationSet {
  readonly name: string;
  readonly migrations: Readonly<Record<string, MigrationFactory>>;
}

/**
 * The migration sets of the main entry, each named after the module whose stores use its tables.
 * Every other module builds on `pipeline` (its outbox, its flights). The names are the ones
 * deployed databases hold in `msgx_migration`: released ones never change. Versions 0005, 0015,
 * 0023, 0025 (reliable messages) and 0006, 0016, 0024, 0027 (task routing) belong to the sets of the subpaths.
 */
export const MIGRATION_MODULES = {
  /** Processing state, identities, the outbox, backfill, intake, leadership, audit, flights. */
  pipeline: {
    "0001_pipeline": pipelineMigration,
    "0002_flights": flightsMigration,
    "0004_reader_indexes": readerIndexesMigration,
    // The outbox payload kept as written (json, not jsonb).
    "0009_outbox_json": outboxJsonMigration,
    // The collections ABTM, SRVT, VIPF, VIPT and the wider collections_known CHECK.
    "0010_flight_collections": flightCollectionsMigration,
    // The content hash kept with each identity binding (content-differs duplicates).
    "0012_identity_content": identityContentMigration,
    // The traceparent of each message's intake span on proc_state and its archive.
    "0014_proc_trace": procTraceMigration,
    // The extra record headers an outbox row carries (a task event's owner), sent as stored.
    "0013_outbox_headers": outboxHeadersMigration,
    // Where the broker put each sent event (partition, offset) and the outbox index by key.
    "0018_lineage": lineageMigration,
    // Runner presence (leader and standbys), and the indexes of the console's history and flight search.
    "0019_console": consoleMigration,
    // Leadership as a lease: when the holder's lease ends, by the database clock.
    "0020_leadership_lease": leadershipLeaseMigration,
    // msgx_pipeline_enter: lock, epoch and fence check in one call, sent with the BEGIN.
    "0021_pipeline_enter": pipelineEnterMigration,
    // The index of the console's recently changed flights.
    "0022_recent_flights": recentFlightsMigration,
    // The state generation (one row) and the functions of commitRun's one round trip.
    "0032_state_generation": stateGenerationMigration,
    // The relay's sent marks in their own narrow table (msg_event_sent) and the msg_event_state view.
    "0033_sent_log": sentLogMigration,
    // msgx_commit_run rewrites only the collections a run changed (run->'rewrite').
    "0034_commit_run_collections": commitRunCollectionsMigration,
    // msgx_commit_run returns its events' ids (the pump hands them to the relay in memory).
    "0035_commit_run_event_ids": commitRunEventIdsMigration,
  },
  /** Upstream requests (`req_track`, the SEQN counter) and reference data (`ref_master`). */
  requests: {
    "0003_requests_reference": requestsReferenceMigration,
    // The request coordinator's columns on req_track, our SEQN counter, the reference listing index.
    "0008_requests": requestsMigration,
    // Reference records as typed fields, with a version per key.
    "0011_reference_data": referenceDataMigration,
  },
  /** Flight history and the PROC_STATE archive index of the maintenance jobs. */
  jobs: { "0007_maintenance": maintenanceMigration },
} as const satisfies Record<string, Record<string, MigrationFactory>>;

export type MigrationModule = keyof typeof MIGRATION_MODULES;

/** A module of the main entry by name, or a set from a subpath. */
export type MigrationChoice = MigrationModule | MigrationSet;

/** Every module of the main entry (the flight exchange): the default of `migrateToLatest`. */
export const ALL_MIGRATION_MODULES: readonly MigrationModule[] = Object.keys(MIGRATION_MODULES) as MigrationModule[];

const migrationsOf = (choice: MigrationChoice): Readonly<Record<string, MigrationFactory>> =>
  typeof choice === "string" ? MIGRATION_MODULES[choice] : choice.migrations;

/** The migrations of `modules` (default: the main entry's), by version. Names sort in apply order. */
export function msgxMigrations(schema: string, modules: readonly MigrationChoice[] = ALL_MIGRATION_MODULES): Record<string, Migration> {
  const chosen = modules.includes("pipeline") ? modules : ["pipeline" as const, ...modules];
  const entries = chosen.flatMap((m) => Object.entries(migrationsOf(m)).map(([name, make]) => [name, make(schema)] as const));
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Stands for a version the database holds but the caller did not choose (another module's, or a
 * subpath's set this caller does not load). Kysely refuses a database whose applied migrations it
 * is not shown; an applied migration never runs again, so this one never runs at all.
 */
const appliedElsewhere = (name: string): Migration => ({
  up: () => Promise.reject(new Error(`msgx migration ${name} is applied; it never runs again`)),
});

/**
 * The in-code provider kysely's `Migrator` reads (no files on disk, so bundles work): the chosen
 * modules' migrations, plus a stand-in for every other version already applied.
 */
export class MsgxMigrationProvider implements MigrationProvider {
  readonly #schema: string;
  readonly #modules: readonly MigrationChoice[];
  readonly #applied: ReadonlySet<string>;
  constructor(schema: string, modules: readonly MigrationChoice[] = ALL_MIGRATION_MODULES, applied: ReadonlySet<string> = new Set()) {
    this.#schema = schema;
    this.#modules = modules;
    this.#applied = applied;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    const chosen = msgxMigrations(this.#schema, this.#modules);
    const others = [...this.#applied].filter((name) => !(name in chosen)).map((name) => [name, appliedElsewhere(name)] as const);
    return { ...chosen, ...Object.fromEntries(others) };
  }
}

export interface MigrateOptions {
  /** The schema the tables live in (created when missing). Default `public`. */
  readonly schema?: string;
  /**
   * The migration sets to apply (`pipeline` always comes with them): module names of the main
   * entry and sets of the subpaths (`TASK_ROUTING_MIGRATIONS`, `RELIABLE_MESSAGE_MIGRATIONS`).
   * Default: the main entry's modules, the flight exchange's tables alone. A module can be added
   * later to a database migrated with fewer, and one migrated with more is accepted.
   */
  readonly modules?: readonly MigrationChoice[];
}

/**
 * A kysely `Migrator` for msgx in `schema`. Unordered migrations are allowed: a module added later
 * applies its versions even when they sort before ones already applied by other modules.
 */
export const msgxMigrator = <DB>(db: Kysely<DB>, options: MigrateOptions = {}, applied: ReadonlySet<string> = new Set()): Migrator => {
  const schema = options.schema ?? "public";
  return new Migrator({
    db: withSchemaIntrospection(db, schema),
    provider: new MsgxMigrationProvider(schema, options.modules, applied),
    migrationTableSchema: schema,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    allowUnorderedMigrations: true,
  });
};

/**
 * Brings the schema to the latest version of the chosen modules. Idempotent: applied versions are
 * skipped, and concurrent callers serialize on kysely's migration lock. Throws the first failure.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, options: MigrateOptions = {}): Promise<MigrationResultSet> {
  const applied = await appliedVersions(db, options.schema ?? "public");
  const result = await msgxMigrator(db, options, applied).migrateToLatest();
  if (result.error !== undefined) {
    throw new Error(`msgx migration failed: ${describe(result.error)}`, { cause: result.error });
  }
  return result;
}

/** The versions `schema` holds (none before its first migration). */
async function appliedVersions<DB>(db: Kysely<DB>, schema: string): Promise<ReadonlySet<string>> {
  const exists = await sql<{ found: boolean }>`
    SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = ${schema} AND c.relname = ${MIGRATION_TABLE}) AS found`.execute(db);
  if (exists.rows[0]?.found !== true) return new Set();
  const rows = await sql<{ name: string }>`SELECT name FROM ${sql.table(`${schema}.${MIGRATION_TABLE}`)}`.execute(db);
  return new Set(rows.rows.map((r) => r.name));
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * `db` with an introspector that looks at `schema` alone. Kysely's migrator checks for its tables
 * by listing every table of the database with `has_schema_privilege(<name>)`, which fails
 * ("schema … does not exist") when another client drops a schema during the scan — on a shared
 * server a neighbour's cleanup would fail our start. Reading our own schema by name has no such race.
 */
function withSchemaIntrospection<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspection: DatabaseIntrospector = {
    getSchemas: async (): Promise<SchemaMetadata[]> =>
      (await sql<{ name: string }>`SELECT nspname AS name FROM pg_catalog.pg_namespace WHERE nspname = ${schema}`.execute(db)).rows,
    getTables: async (): Promise<TableMetadata[]> =>
      (
        await sql<{ name: string; isView: boolean }>`
          SELECT c.relname AS name, c.relkind IN ('v', 'm') AS "isView"
          FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm')`.execute(db)
      ).rows.map((t) => ({ name: t.name, isView: t.isView, schema, columns: [] })),
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === "introspection") return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
