import { Migrator, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from "kysely";
import { pipelineMigration } from "./0001-pipeline.js";
import { flightsMigration } from "./0002-flights.js";
import { requestsReferenceMigration } from "./0003-requests-reference.js";
import { readerIndexesMigration } from "./0004-reader-indexes.js";
import { reliableMessageMigration } from "../reliable-message/reliable-message-migration.js";
import { taskRoutingMigration } from "../task-routing/task-routing-migration.js";
import { requestsMigration } from "../requests/requests-migration.js";
import { maintenanceMigration } from "../jobs/maintenance-migration.js";
import { outboxJsonMigration } from "./0009-outbox-json.js";
import { flightCollectionsMigration } from "./0010-flight-collections.js";
import { referenceDataMigration } from "./0011-reference-data.js";
import { identityContentMigration } from "./0012-identity-content.js";

/** The migration bookkeeping tables, beside the msgx tables in the same schema. */
export const MIGRATION_TABLE = "msgx_migration";
export const MIGRATION_LOCK_TABLE = "msgx_migration_lock";

/** Every msgx migration, by version. Names sort in apply order; released ones never change. */
export function msgxMigrations(schema: string): Record<string, Migration> {
  return {
    "0001_pipeline": pipelineMigration(schema),
    "0002_flights": flightsMigration(schema),
    "0003_requests_reference": requestsReferenceMigration(schema),
    "0004_reader_indexes": readerIndexesMigration(schema),
    // The reliable-message service's table (seed 002), beside the outbox its sends go to.
    "0005_reliable_message": reliableMessageMigration(schema),
    // The task service's tables (seed 001); they write msg_event.
    "0006_task_routing": taskRoutingMigration(schema),
    // Flight history and the PROC_STATE archive index of the maintenance jobs.
    "0007_maintenance": maintenanceMigration(schema),
    // The request coordinator's columns on req_track, our SEQN counter, the reference listing index.
    "0008_requests": requestsMigration(schema),
    // The outbox payload kept as written (json, not jsonb).
    "0009_outbox_json": outboxJsonMigration(schema),
    // The collections ABTM, SRVT, VIPF, VIPT and the wider collections_known CHECK.
    "0010_flight_collections": flightCollectionsMigration(schema),
    // Reference records as typed fields, with a version per key.
    "0011_reference_data": referenceDataMigration(schema),
    // The content hash kept with each identity binding (content-differs duplicates).
    "0012_identity_content": identityContentMigration(schema),
  };
}

/** The in-code provider kysely's `Migrator` reads (no files on disk, so bundles work). */
export class MsgxMigrationProvider implements MigrationProvider {
  readonly #schema: string;
  constructor(schema: string) {
    this.#schema = schema;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    return msgxMigrations(this.#schema);
  }
}

export interface MigrateOptions {
  /** The schema the tables live in (created when missing). Default `public`. */
  readonly schema?: string;
}

/** A kysely `Migrator` for msgx in `schema`. */
export const msgxMigrator = (db: Kysely<any>, options: MigrateOptions = {}): Migrator => {
  const schema = options.schema ?? "public";
  return new Migrator({
    db,
    provider: new MsgxMigrationProvider(schema),
    migrationTableSchema: schema,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
};

/**
 * Brings the schema to the latest version. Idempotent: applied versions are skipped, and
 * concurrent callers serialize on kysely's migration lock. Throws the first failure.
 */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions = {}): Promise<MigrationResultSet> {
  const result = await msgxMigrator(db, options).migrateToLatest();
  if (result.error !== undefined) {
    throw new Error(`msgx migration failed: ${describe(result.error)}`, { cause: result.error });
  }
  return result;
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));
