import { decideRecovery, lastSendState, reliableMessageOptions } from "@msgx/reliable";
import { gateService, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely, type Transaction } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeConsumeLogContract } from "../../reliable/src/consume-log.contract.js";
import { describeReliableMessageStoreContract } from "../../reliable/src/reliable-message-store.contract.js";
import { PgConsumeLog } from "../src/reliable/pg-consume-log.js";
import { PgReliableMessageStore } from "../src/reliable/pg-reliable-message-store.js";
import { reliableMessageConsumeLogMigration, reliableMessageMigration } from "../src/reliable/0005-reliable-message.js";
import { PgOutboxStore } from "../src/index.js";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: reliable-message store and consume log contracts", probePostgres);

/** Applies the reliable-message migrations unless the main list already did (once it is registered there). */
async function migrateReliableMessages(db: Kysely<any>, schema: string): Promise<void> {
  const { rows } = await sql<{ t: string | null }>`SELECT to_regclass('reliable_message')::text AS t`.execute(db);
  if (rows[0]?.t === null || rows[0]?.t === undefined) await db.transaction().execute((trx) => reliableMessageMigration(schema).up(trx));
  await db.transaction().execute(async (trx) => {
    await reliableMessageConsumeLogMigration(schema).up(trx);
    await sql`CREATE TABLE ledger (k text PRIMARY KEY)`.execute(trx);
  });
}

/** Every outbox row, ascending (through the relay's own store, so the store writes what the relay reads). */
async function outboxRows(db: Kysely<any>) {
  const { rows } = await sql<{ event_id: string }>`SELECT event_id FROM msg_event ORDER BY event_id`.execute(db);
  return new PgOutboxStore(db).get(rows.map((r) => Number(r.event_id)));
}

/**
 * A row as migration 0005 wrote it (before 0015): the new columns take their defaults, and the
 * store reads it as a message with no headers, no check delay, no last send row and no rejects.
 */
function describeRowsFromBefore0015(name: string, open: () => Promise<{ db: Kysely<any>; close: () => Promise<void> }>): void {
  it(`${name}: a row written before migration 0015 reads with the new fields empty, and the recovery treats its last send as sent`, async () => {
    const t = await open();
    try {
      await sql`
        INSERT INTO reliable_message (message_id, version, message_body, message_data_type, consumer_queue, status, send_count, dead,
          check_count, next_check_at, last_sent_at, created_at, updated_at, confirmed_at, remark, field1, field2, field3)
        VALUES ('OLD-1', 2, '{}', NULL, 'accounting', 'SENDING', 1, false, 0, '2026-03-05T08:01:00Z', '2026-03-05T08:00:00Z',
          '2026-03-05T07:59:00Z', '2026-03-05T08:00:00Z', '2026-03-05T08:00:00Z', NULL, NULL, NULL, NULL)`.execute(t.db);
      const m = await new PgReliableMessageStore(t.db).get("OLD-1");
      expect(m).toMatchObject({ status: "SENDING", sendCount: 1, headers: null, checkDelayMs: null, deliverAt: null, lastEventId: null, rejectCount: 0, rejectedAt: null, lastError: null });
      // No outbox row to read: sent at last_sent_at (08:00), so the first wait (1 min) ends at 08:01.
      const at = Date.parse("2026-03-05T08:01:00Z");
      const options = reliableMessageOptions();
      expect(decideRecovery(m!, at - 1, options, lastSendState(undefined)).kind).toBe("noop");
      expect(decideRecovery(m!, at, options, lastSendState(undefined))).toMatchObject({ kind: "apply", event: { type: "resent", by: "recovery" } });
      await expect(sql`UPDATE reliable_message SET status = 'GONE' WHERE message_id = 'OLD-1'`.execute(t.db)).rejects.toThrow(/check/i);
      await expect(sql`UPDATE reliable_message SET reject_count = -1 WHERE message_id = 'OLD-1'`.execute(t.db)).rejects.toThrow(/check/i);
    } finally {
      await t.close();
    }
  });
}

const consumeLogSubject = (db: Kysely<any>, close: () => Promise<void>) => ({
  log: new PgConsumeLog(db),
  write: async (tx: Transaction<any>, key: string) => {
    await sql`INSERT INTO ledger (k) VALUES (${key})`.execute(tx);
  },
  written: async () => (await sql<{ k: string }>`SELECT k FROM ledger ORDER BY k COLLATE "C"`.execute(db)).rows.map((r) => r.k),
  close,
});

describe.skipIf(!gate.available)("reliable messages on PostgreSQL", () => {
  describeReliableMessageStoreContract("PgReliableMessageStore (PostgreSQL, fresh schema per test)", async () => {
    const clock = new ManualClock();
    const t = await freshPgSchema({ clock, max: 8 });
    await migrateReliableMessages(t.db, t.schema);
    return { store: new PgReliableMessageStore(t.db, { clock }), outboxRows: () => outboxRows(t.db), close: t.close };
  }, { keyOrderRuns: 15 });

  describeRowsFromBefore0015("PostgreSQL", async () => {
    const t = await freshPgSchema({ max: 2 });
    await migrateReliableMessages(t.db, t.schema);
    return t;
  });

  describeConsumeLogContract<Transaction<any>>("PgConsumeLog (PostgreSQL, fresh schema per test)", async () => {
    const t = await freshPgSchema({ max: 4 });
    await migrateReliableMessages(t.db, t.schema);
    return consumeLogSubject(t.db, t.close);
  });
});

describe("reliable messages on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeReliableMessageStoreContract("PgReliableMessageStore (PGlite in memory, fresh schema per test)", async () => {
    const clock = new ManualClock();
    const t = await pglite.freshSchema({ clock });
    await migrateReliableMessages(t.db, t.schema);
    return { store: new PgReliableMessageStore(t.db, { clock }), outboxRows: () => outboxRows(t.db), close: t.close };
  }, { keyOrderRuns: 15 });
  describeRowsFromBefore0015("PGlite", async () => {
    const t = await pglite.freshSchema();
    await migrateReliableMessages(t.db, t.schema);
    return t;
  });
});
