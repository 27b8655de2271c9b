import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, describe } from "vitest";
import { describeMailboxContract, gateService, type MailboxHarness } from "@msgx/core/testing";
import { createPgMailboxTable } from "../src/mailbox/pg-mailbox-schema.js";
import { PgMailbox } from "../src/mailbox/pg-mailbox.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const pool = new pg.Pool({ connectionString: PG_URL, max: 4, connectionTimeoutMillis: 3_000 });
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
const gate = await gateService("PostgreSQL", "PgMailbox contract", async () => void (await pool.query("SELECT 1")));
afterAll(async () => {
  await db.destroy();
});

let counter = 0;
const harness = (onlyValidStatus: boolean) => async (): Promise<MailboxHarness> => {
  const table = `msgx_t_mailbox_${process.pid}_${++counter}`;
  await createPgMailboxTable(db, table);
  const mailbox = new PgMailbox(db, { table, onlyValidStatus });
  const t = sql.table(table);
  return {
    mailbox,
    insert: async (raw, o) =>
      Number((await sql<{ id: string }>`INSERT INTO ${t} (clob_msg, status) VALUES (${raw}, ${o?.status ?? "VALID"}) RETURNING id::text AS id`.execute(db)).rows[0]!.id),
    processedAt: async (id) => {
      const r = (await sql<{ at: string | null }>`SELECT (extract(epoch FROM date_processed) * 1000)::bigint::text AS at FROM ${t} WHERE id = ${id}`.execute(db)).rows[0];
      return r === undefined ? undefined : r.at === null ? null : Number(r.at);
    },
    subsystem: async (id) => {
      const r = (await sql<{ name: string | null; sequence: number | null; type: string | null; subtype: string | null }>`
        SELECT subsystem_name AS name, subsystem_sequence AS sequence, subsystem_type AS type, subsystem_subtype AS subtype FROM ${t} WHERE id = ${id}`.execute(db)).rows[0]!;
      return r;
    },
    remove: async (id) => void (await sql`DELETE FROM ${t} WHERE id = ${id}`.execute(db)),
    close: async () => void (await sql`DROP TABLE IF EXISTS ${t}`.execute(db)),
  };
};

describe.skipIf(!gate.available)("PgMailbox on PostgreSQL", () => {
  describeMailboxContract("PgMailbox (PostgreSQL)", harness(false));
  describeMailboxContract("PgMailbox (PostgreSQL), STATUS filter", harness(true), { statusFilter: true });
});
