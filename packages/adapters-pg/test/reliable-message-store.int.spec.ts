import { gateService, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely, type Transaction } from "kysely";
import { afterAll, beforeAll, describe } from "vitest";
import { describeConsumeLogContract } from "../../core/src/reliable-message/consume-log.contract.js";
import { describeReliableMessageStoreContract } from "../../core/src/reliable-message/reliable-message-store.contract.js";
import { PgConsumeLog } from "../src/reliable-message/pg-consume-log.js";
import { PgReliableMessageStore } from "../src/reliable-message/pg-reliable-message-store.js";
import { reliableMessageConsumeLogMigration, reliableMessageMigration } from "../src/migrations/0005-reliable-message.js";
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
  });
});
