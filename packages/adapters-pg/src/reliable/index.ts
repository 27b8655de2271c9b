/**
 * `@msgx/adapters-pg/reliable`: the PostgreSQL stores of the reliable-message service
 * (`@msgx/reliable`, an optional peer: only a project that imports this subpath needs it). Their
 * table comes with `RELIABLE_MESSAGE_MIGRATIONS`, a set the main entry's `migrateToLatest` applies
 * when named in `modules`.
 */
export { PgReliableMessageStore, type PgReliableMessageStoreOptions } from "./pg-reliable-message-store.js";
export { PgConsumeLog } from "./pg-consume-log.js";
export type {
  ReliableMessageTable,
  ReliableMessageConsumeLogTable,
  ReliableMessageDatabase,
  ReliableMessageConsumeLogDatabase,
  ReliableMessageSubscriptionTable,
} from "./reliable-message-tables.js";

// The service's migrations (its database) and the consumer-side log's, which lives in a consumer's
// own database.
export { RELIABLE_MESSAGE_MIGRATIONS } from "./reliable-message-migrations.js";
export { reliableMessageMigration, reliableMessageConsumeLogMigration } from "./0005-reliable-message.js";
export { reliableMessageServiceMigration } from "./0015-reliable-message-service.js";
export { reliableMessageDeliverAtMigration } from "./0023-reliable-message-deliver-at.js";
export { reliableMessageSubscriptionsMigration } from "./0025-reliable-message-subscriptions.js";
export { reliableMessageKeyOrderMigration } from "./0026-reliable-message-key-order.js";
export { reliableMessageHistoryMigration } from "./0028-reliable-message-history.js";
export { reliableMessageHistoryRepeatsMigration } from "./0030-reliable-message-history-repeats.js";
