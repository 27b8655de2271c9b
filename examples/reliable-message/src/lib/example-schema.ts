import { ALL_MIGRATION_MODULES, migrateToLatest } from "@msgx/adapters-pg";
import { sql, type Kysely } from "kysely";
import { RELIABLE_MESSAGE_MIGRATIONS, reliableMessageConsumeLogMigration } from "./core.js";

/**
 * Everything the example needs in one schema: the msgx tables (`msg_event`, the outbox), the
 * service's `reliable_message` (the `@msgx/adapters-pg/reliable` set), the consume log, and the two services' own tables. In
 * production the payment and accounting tables (and the consume log) live in their services'
 * databases; one schema keeps the example small.
 */
export async function migrateExample(db: Kysely<any>, schema: string): Promise<void> {
  await migrateToLatest(db, { schema, modules: [...ALL_MIGRATION_MODULES, RELIABLE_MESSAGE_MIGRATIONS] });
  await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL search_path TO ${sql.id(schema)}`.execute(trx);
    const log = await sql<{ t: string | null }>`SELECT to_regclass('reliable_message_consume_log')::text AS t`.execute(trx);
    if (log.rows[0]?.t === null || log.rows[0]?.t === undefined) await reliableMessageConsumeLogMigration(schema).up(trx);
    // The payment service's business table (seed: rp_trade_payment_record, reduced).
    await sql`CREATE TABLE IF NOT EXISTS payment (
      order_no   text        PRIMARY KEY,
      status     text        NOT NULL CHECK (status IN ('SUCCESS', 'ABORTED')),
      amount     numeric(14,2),
      payer      text,
      receiver   text,
      message_id text,
      at         timestamptz NOT NULL DEFAULT now()
    )`.execute(trx);
    // The accounting service's ledger (seed: rp_accounting_voucher, reduced).
    await sql`CREATE TABLE IF NOT EXISTS ledger (
      voucher_no text        PRIMARY KEY,
      order_no   text        NOT NULL,
      amount     numeric(14,2) NOT NULL,
      payer      text        NOT NULL,
      receiver   text        NOT NULL,
      booked_at  timestamptz NOT NULL DEFAULT now()
    )`.execute(trx);
  });
}
