import type { MigrationSet } from "../migrations/migrate.js";
import { reliableMessageMigration } from "./0005-reliable-message.js";
import { reliableMessageServiceMigration } from "./0015-reliable-message-service.js";
import { reliableMessageDeliverAtMigration } from "./0023-reliable-message-deliver-at.js";
import { reliableMessageSubscriptionsMigration } from "./0025-reliable-message-subscriptions.js";
import { reliableMessageKeyOrderMigration } from "./0026-reliable-message-key-order.js";
import { reliableMessageHistoryMigration } from "./0028-reliable-message-history.js";
import { reliableMessageHistoryRepeatsMigration } from "./0030-reliable-message-history-repeats.js";

/**
 * The reliable-message service's table (seed 002), beside the outbox its sends go to, for the
 * database that hosts it: `migrateToLatest(db, { modules: [RELIABLE_MESSAGE_MIGRATIONS] })`. The
 * version names are the ones databases migrated by 0.1.x hold (then part of the main entry's
 * default list).
 */
export const RELIABLE_MESSAGE_MIGRATIONS: MigrationSet = {
  name: "reliable-message",
  migrations: {
    "0005_reliable_message": reliableMessageMigration,
    // Terminal statuses, last send's event id, rejects, headers, check delay, the purge index.
    "0015_reliable_message_service": reliableMessageServiceMigration,
    // The delivery time asked for at the prepare.
    "0023_reliable_message_deliver_at": reliableMessageDeliverAtMigration,
    // Subscriptions (fan-out): one delivery row per message and subscription.
    "0025_reliable_message_subscriptions": reliableMessageSubscriptionsMigration,
    // The business key and the confirm sequence of per-key order.
    "0026_reliable_message_key_order": reliableMessageKeyOrderMigration,
    // Each message's history (its lineage), one row per state change.
    "0028_reliable_message_history": reliableMessageHistoryMigration,
    // A history row stands for a run of identical outage rechecks.
    "0030_reliable_message_history_repeats": reliableMessageHistoryRepeatsMigration,
  },
};
