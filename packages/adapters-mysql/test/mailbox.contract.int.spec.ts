import { afterAll, beforeAll, describe } from "vitest";
import type { Pool } from "mysql2/promise";
import { describeMailboxContract, type MailboxHarness } from "@msgx/core/testing";
import { createMailboxTables, datetimeToInstant, dropMailboxTables, MysqlMailbox, type MysqlMailboxOptionsInput } from "@msgx/adapters-mysql";
import { createMailboxPool, createUpstreamPool, mysqlGate, uniqueTables } from "./mysql-test-env.js";

const gate = await mysqlGate("adapters-mysql: Mailbox contract");

describe.skipIf(!gate.available)("MysqlMailbox against MariaDB", () => {
  let pool: ReturnType<typeof createMailboxPool>;
  let upstream: Pool;
  beforeAll(() => {
    pool = createMailboxPool();
    upstream = createUpstreamPool();
  });
  afterAll(async () => {
    await pool.end();
    await upstream.end();
  });

  /** Fresh tables per test (a unique name, dropped in `close`). */
  const factory = (options: MysqlMailboxOptionsInput) => async (): Promise<MailboxHarness> => {
    const tables = uniqueTables();
    await createMailboxTables(pool, tables);
    const t = `\`${tables.inbound}\``;
    return {
      mailbox: new MysqlMailbox(pool, { ...options, tables }),
      async insert(raw, o) {
        const [r] = await upstream.query(`INSERT INTO ${t} (CLOB_MSG, STATUS) VALUES (?, ?)`, [raw, o?.status ?? "VALID"]);
        return Number((r as { insertId: number }).insertId);
      },
      async processedAt(msgId) {
        const [rows] = await upstream.query(`SELECT DATE_FORMAT(DATE_PROCESSED, '%Y-%m-%d %H:%i:%s') AS p FROM ${t} WHERE ID = ?`, [msgId]);
        const row = (rows as { p: string | null }[])[0];
        if (row === undefined) return undefined;
        return row.p === null ? null : datetimeToInstant(row.p, "+00:00");
      },
      async subsystem(msgId) {
        const [rows] = await upstream.query(
          `SELECT SUBSYSTEM_NAME AS name, SUBSYSTEM_SEQUENCE AS sequence, SUBSYSTEM_TYPE AS type, SUBSYSTEM_SUBTYPE AS subtype FROM ${t} WHERE ID = ?`,
          [msgId],
        );
        const row = (rows as { name: string | null; sequence: number | null; type: string | null; subtype: string | null }[])[0];
        return row ?? { name: null, sequence: null, type: null, subtype: null };
      },
      async remove(msgId) {
        await upstream.query(`DELETE FROM ${t} WHERE ID = ?`, [msgId]);
      },
      async close() {
        await dropMailboxTables(pool, tables);
      },
    };
  };

  describeMailboxContract("MysqlMailbox", factory({}), { timePrecisionMs: 1000 });
  describeMailboxContract("MysqlMailbox, STATUS = 'VALID' filter", factory({ onlyValidStatus: true }), {
    statusFilter: true,
    timePrecisionMs: 1000,
  });
});
