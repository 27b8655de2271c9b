/**
 * `@msgx/adapters-pg/reliable`: the PostgreSQL stores of the reliable-message service
 * (`@msgx/reliable`, an optional peer: only a project that imports this subpath needs it). The tables
 * come with the `reliable-message` migration module of the main entry's `migrateToLatest`.
 */
export { PgReliableMessageStore, type PgReliableMessageStoreOptions } from "./pg-reliable-message-store.js";
export { PgConsumeLog } from "./pg-consume-log.js";
export type {
  ReliableMessageTable,
  ReliableMessageConsumeLogTable,
  ReliableMessageDatabase,
  ReliableMessageConsumeLogDatabase,
} from "./reliable-message-tables.js";

// The service's migrations (also in the main entry's `migrateToLatest`, module `reliable-message`)
// and the consumer-side log's, which lives in a consumer's own database.
export { reliableMessageMigration, reliableMessageConsumeLogMigration } from "../migrations/0005-reliable-message.js";
export { reliableMessageServiceMigration } from "../migrations/0015-reliable-message-service.js";
