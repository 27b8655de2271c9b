import { afterAll, beforeAll, describe } from "vitest";
import type { Pool } from "mysql2/promise";
import { describeMailboxContract, type MailboxHarness } from "@msgx/core/testing";
import { createMailboxTables, datetimeToInstant, dropMailboxTables, MysqlMailbox, type MysqlMailboxOptionsInput } from "@msgx/adapters-mysql";
import { createMailboxPool, createUpstreamPool, mysqlGate, NAME_MAPS, upstreamInbound } from "./mysql-test-env.js";

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

  describe.each(NAME_MAPS)("on $layout", ({ unique }) => {
    /** Fresh tables per test (unique names, dropped in `close`). */
    const factory = (options: MysqlMailboxOptionsInput) => async (): Promise<MailboxHarness> => {
      const names = unique();
      await createMailboxTables(pool, names);
      const inbound = upstreamInbound(upstream, names);
      const { table: t, columns: c } = inbound;
      return {
        mailbox: new MysqlMailbox(pool, { ...options, names }),
        insert: (raw, o) => inbound.insert(raw, { status: o?.status ?? "VALID" }),
        async processedAt(msgId) {
          const [rows] = await upstream.query(`SELECT DATE_FORMAT(${c.dateProcessed}, '%Y-%m-%d %H:%i:%s') AS p FROM ${t} WHERE ${c.id} = ?`, [msgId]);
          const row = (rows as { p: string | null }[])[0];
          if (row === undefined) return undefined;
          return row.p === null ? null : datetimeToInstant(row.p, "+00:00");
        },
        async subsystem(msgId) {
          const [rows] = await upstream.query(
            `SELECT ${c.subsystemName} AS name, ${c.subsystemSequence} AS sequence, ${c.subsystemType} AS type, ${c.subsystemSubtype} AS subtype FROM ${t} WHERE ${c.id} = ?`,
            [msgId],
          );
          const row = (rows as { name: string | null; sequence: number | null; type: string | null; subtype: string | null }[])[0];
          return row ?? { name: null, sequence: null, type: null, subtype: null };
        },
        async remove(msgId) {
          await upstream.query(`DELETE FROM ${t} WHERE ${c.id} = ?`, [msgId]);
        },
        async close() {
          await dropMailboxTables(pool, names);
        },
      };
    };

    describeMailboxContract("MysqlMailbox", factory({}), { timePrecisionMs: 1000 });
    describeMailboxContract("MysqlMailbox, STATUS = 'VALID' filter", factory({ onlyValidStatus: true }), {
      statusFilter: true,
      timePrecisionMs: 1000,
    });
  });
});
