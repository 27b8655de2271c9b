// Store
export { PgPipelineStore, PG_BACKFILL_FIRST_DELAY_MS, type PgPipelineStoreOptions } from "./pg-pipeline-store.js";
export { PgPipelineTx } from "./pg-pipeline-tx.js";
export { PgOutboxStore } from "./pg-outbox-store.js";
export { PgFlightReader } from "./pg-flight-reader.js";
export { PgLineageReader } from "./pg-lineage-reader.js";
export { PgStatusReader } from "./status/pg-status-reader.js";
export { PgRunnerPresence } from "./status/pg-runner-presence.js";
export { PgThroughputReader } from "./status/pg-throughput-reader.js";
export { createPgStores, type CreatePgStoresOptions } from "./create-pg-stores.js";
export type { PgStores, PgLeadershipRequest } from "./pg-stores.js";
export { pgPoolConfig, guardPool, type PgConnectionOptions, type GuardablePool } from "./pg-pool-config.js";
export { HotStatements, prepareHotStatements, type PreparablePool } from "./prepared-statements.js";
export { parsePgHosts, checkPgHosts, formatHost, type PgHost, type PgHostList, type TargetSessionAttrs } from "./pg-hosts.js";
export { pgHostClient, type HostableClient, type HostableClientClass } from "./pg-host-client.js";

// Mailbox (CMINMSGS-shaped, for the embedded runner)
export { PgMailbox, type PgMailboxOptions } from "./mailbox/pg-mailbox.js";
export { createPgMailboxTable } from "./mailbox/pg-mailbox-schema.js";

// Schema
export {
  migrateToLatest,
  msgxMigrator,
  msgxMigrations,
  MsgxMigrationProvider,
  MIGRATION_TABLE,
  MIGRATION_LOCK_TABLE,
  MIGRATION_MODULES,
  ALL_MIGRATION_MODULES,
  type MigrateOptions,
  type MigrationModule,
  type MigrationChoice,
  type MigrationSet,
  type MigrationFactory,
} from "./migrations/migrate.js";
export { COLLECTION_TABLES } from "./rows/collection-tables.js";
// The database for kysely: one interface per table, grouped per concept
export type {
  MsgxDatabase,
  ProcStateTable,
  ProcStateHstTable,
  MsgIdentityTable,
  MsgEventTable,
  BackfillTodoTable,
  IntakeStateTable,
  LeadershipTable,
  RunnerPresenceTable,
  ReplayAuditTable,
  FlightSchdTable,
  FlightSchdHstTable,
  FlightCollectionTable,
  FlightCollectionTableName,
  SchdSnapLogTable,
} from "./rows/tables.js";
export type { Int8, Timestamp, Jsonb } from "./rows/column-types.js";
export type { ReqTrackTable, ReqCounterTable, RefMasterTable, RequestsDatabase } from "./requests/request-tables.js";
export type { CminmsgsTable, EmbeddedMailboxDatabase } from "./mailbox/pg-mailbox-schema.js";
export type { CoutmsgsTable, EmbeddedOutboundDatabase } from "./requests/pg-outbound-schema.js";

// Errors
export {
  mapPgError,
  classifyPgError,
  pgCall,
  SQLSTATE_TABLE,
  SQLSTATE_CLASS_TABLE,
  NODE_CODE_TABLE,
  MESSAGE_TABLE,
  type PgErrorRule,
  type PgPhase,
} from "./pg-error-map.js";

// Leadership
export { PgLeaseStore } from "./pg-lease-store.js";
export {
  PgLeadership,
  bumpLeadershipEpoch,
  DEFAULT_LEASE_TTL_MS,
  type PgLeadershipOptions,
  type LossListener,
} from "./pg-leadership.js";
export { lockKeys, DEFAULT_LOCK_NAMESPACE, type LockKeys } from "./lock-keys.js";

// PGlite
export { PGliteDialect, PGliteAdapter, type PGliteDialectConfig } from "./pglite/pglite-dialect.js";
export { PGliteDriver } from "./pglite/pglite-driver.js";
export type { PGliteLike, PGliteResults } from "./pglite/pglite-types.js";
export { createPgliteStores } from "./pglite/create-pglite-stores.js";

// Maintenance jobs
export { PgMaintenanceStore, type PgMaintenanceStoreOptions } from "./jobs/pg-maintenance-store.js";
export { maintenanceMigration } from "./migrations/0007-maintenance.js";

// Upstream requests and reference data
export { PgRequestStore } from "./requests/pg-request-store.js";
export { PgReferenceReader } from "./requests/pg-reference-reader.js";
export { PgOutboundMailbox } from "./requests/pg-outbound-mailbox.js";
export { createPgOutboundTable } from "./requests/pg-outbound-schema.js";
export { requestsMigration } from "./migrations/0008-requests.js";
