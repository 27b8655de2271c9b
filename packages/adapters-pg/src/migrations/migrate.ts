import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, type SchemaMetadata, type TableMetadata } from "kysely";
import { pipelineMigration } from "./0001-pipeline.js";
import { flightsMigration } from "./0002-flights.js";
import { requestsReferenceMigration } from "./0003-requests-reference.js";
import { readerIndexesMigration } from "./0004-reader-indexes.js";
import { reliableMessageMigration } from "./0005-reliable-message.js";
import { taskRoutingMigration } from "./0006-task-routing.js";
import { maintenanceMigration } from "./0007-maintenance.js";
import { requestsMigration } from "./0008-requests.js";
import { outboxJsonMigration } from "./0009-outbox-json.js";
import { flightCollectionsMigration } from "./0010-flight-collections.js";
import { referenceDataMigration } from "./0011-reference-data.js";
import { identityContentMigration } from "./0012-identity-content.js";
import { procTraceMigration } from "./0014-proc-trace.js";
import { outboxHeadersMigration } from "./0013-outbox-headers.js";
import { reliableMessageServiceMigration } from "./0015-reliable-message-service.js";
import { taskRoutingServiceMigration } from "./0016-task-routing-service.js";
import { lineageMigration } from "./0018-lineage.js";
import { consoleMigration } from "./0019-console.js";
import { leadershipLeaseMigration } from "./0020-leadership-lease.js";
import { pipelineEnterMigration } from "./0021-pipeline-enter.js";
import { recentFlightsMigration } from "./0022-recent-flights.js";

/** The migration bookkeeping tables, beside the msgx tables in the same schema. */
export const MIGRATION_TABLE = "msgx_migration";
export const MIGRATION_LOCK_TABLE = "msgx_migration_lock";

/**
 * The migration sets a user installs, each named after the module whose stores use its tables.
 * Every other module builds on `pipeline` (its outbox, its flights). The names are the ones
 * deployed databases hold in `msgx_migration`: released ones never change.
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
  },
  /** Upstream requests (`req_track`, the SEQN counter) and reference data (`ref_master`). */
  requests: {
    "0003_requests_reference": requestsReferenceMigration,
    // The request coordinator's columns on req_track, our SEQN counter, the reference listing index.
    "0008_requests": requestsMigration,
    // Reference records as typed fields, with a version per key.
    "0011_reference_data": referenceDataMigration,
  },
  /** The reliable-message service's table (seed 002), beside the outbox its sends go to. */
  "reliable-message": {
    "0005_reliable_message": reliableMessageMigration,
    // Terminal statuses, last send's event id, rejects, headers, check delay, the purge index.
    "0015_reliable_message_service": reliableMessageServiceMigration,
  },
  /** The task service's tables (seed 001); they write msg_event. */
  "task-routing": {
    "0006_task_routing": taskRoutingMigration,
    // FAILED, dispatch bookkeeping, watchdog alerts, the dispatch and purge probes, the replay audit.
    "0016_task_routing_service": taskRoutingServiceMigration,
  },
  /** Flight history and the PROC_STATE archive index of the maintenance jobs. */
  jobs: { "0007_maintenance": maintenanceMigration },
} as const satisfies Record<string, Record<string, (schema: string) => Migration>>;

export type MigrationModule = keyof typeof MIGRATION_MODULES;

/** Every module: what the runner needs, and the default of `migrateToLatest`. */
export const ALL_MIGRATION_MODULES: readonly MigrationModule[] = Object.keys(MIGRATION_MODULES) as MigrationModule[];

/** The migrations of `modules` (default: all), by version. Names sort in apply order. */
export function msgxMigrations(schema: string, modules: readonly MigrationModule[] = ALL_MIGRATION_MODULES): Record<string, Migration> {
  const chosen = modules.includes("pipeline") ? modules : (["pipeline", ...modules] as const);
  const entries = chosen.flatMap((m) => Object.entries(MIGRATION_MODULES[m]).map(([name, make]) => [name, make(schema)] as const));
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The in-code provider kysely's `Migrator` reads (no files on disk, so bundles work): the chosen
 * modules' migrations, plus any other msgx migration already applied (kysely refuses a database
 * whose applied migrations it is not shown; an applied one never runs again).
 */
export class MsgxMigrationProvider implements MigrationProvider {
  readonly #schema: string;
  readonly #modules: readonly MigrationModule[];
  readonly #applied: ReadonlySet<string>;
  constructor(schema: string, modules: readonly MigrationModule[] = ALL_MIGRATION_MODULES, applied: ReadonlySet<string> = new Set()) {
    this.#schema = schema;
    this.#modules = modules;
    this.#applied = applied;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    const all = msgxMigrations(this.#schema);
    const chosen = msgxMigrations(this.#schema, this.#modules);
    return Object.fromEntries(Object.entries(all).filter(([name]) => name in chosen || this.#applied.has(name)));
  }
}

export interface MigrateOptions {
  /** The schema the tables live in (created when missing). Default `public`. */
  readonly schema?: string;
  /**
   * The migration sets to apply (`pipeline` always comes with them). Default: every module, as the
   * runner needs. A module can be added later to a database migrated with fewer.
   */
  readonly modules?: readonly MigrationModule[];
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
  const known = await msgxMigrator(db, { ...options, modules: ALL_MIGRATION_MODULES }).getMigrations();
  const applied = new Set(known.filter((m) => m.executedAt !== undefined).map((m) => m.name));
  const result = await msgxMigrator(db, options, applied).migrateToLatest();
  if (result.error !== undefined) {
    throw new Error(`msgx migration failed: ${describe(result.error)}`, { cause: result.error });
  }
  return result;
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
