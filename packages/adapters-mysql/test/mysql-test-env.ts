import { createConnection, createPool, type Pool, type PoolOptions } from "mysql2/promise";
import { gateService, type ServiceGate } from "@msgx/core/testing";
import {
  DEFAULT_MAILBOX_NAMES,
  mailboxPoolOptions,
  quoteMailboxNames,
  type InboundColumns,
  type MailboxNames,
  type MysqlPoolLike,
} from "@msgx/adapters-mysql";

/** The test server: `MSGX_MYSQL_URL`, else the local MariaDB (root, no password, database `test`). */
export const MYSQL_URL = process.env["MSGX_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";

/** A pool as an application would build it for the mailbox. Typed as the port's structural type on purpose. */
export function createMailboxPool(extra: PoolOptions = {}): Pool & MysqlPoolLike {
  const pool: Pool = createPool({ uri: MYSQL_URL, ...mailboxPoolOptions, ...extra });
  const checked: MysqlPoolLike = pool; // compile-time proof that a mysql2 pool satisfies the port
  void checked;
  return pool;
}

/** A pool on a port where nothing listens: every connect is refused at once. */
export function createRefusedPool(): Pool {
  return createPool({ host: "127.0.0.1", port: 1, user: "root", ...mailboxPoolOptions, connectTimeout: 2_000 });
}

/** A plain pool in the server's default session: the upstream's side of the table. */
export function createUpstreamPool(): Pool {
  return createPool({ uri: MYSQL_URL, connectionLimit: 4, supportBigNumbers: true, charset: "utf8mb4_unicode_ci" });
}

export function mysqlGate(suite: string): Promise<ServiceGate> {
  return gateService("MariaDB/MySQL", suite, async () => {
    const c = await createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
    await c.end();
  });
}

let counter = 0;

/** A table pair as the upstream names it (`cminmsgs`, `coutmsgs`, prefixed columns), under unique table names. */
export function uniqueNames(): MailboxNames {
  const tag = `t${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const d = DEFAULT_MAILBOX_NAMES;
  return { inbound: { ...d.inbound, table: `${tag}_cminmsgs` }, outbound: { ...d.outbound, table: `${tag}_coutmsgs` } };
}

/** The same tables with every table and column name changed: whatever still works is not hard-coded. */
export function uniqueRenamedNames(): MailboxNames {
  const tag = `r${process.pid}_${Date.now().toString(36)}_${counter++}`;
  return {
    inbound: {
      table: `${tag}_in_box`,
      columns: {
        id: "msg_no",
        clobMsg: "body",
        dateReceived: "got_at",
        dateProcessed: "done_at",
        subsystemName: "snd",
        subsystemSequence: "seq",
        subsystemDateSent: "sent_at",
        subsystemType: "typ",
        subsystemSubtype: "sub",
        status: "state",
      },
    },
    outbound: {
      table: `${tag}_out_box`,
      columns: {
        id: "req_no",
        clobMsg: "req_body",
        dateInserted: "put_at",
        dateSent: "taken_at",
        routingId: "route",
        truefalsGroup: "grp",
        noMessages: "grp_n",
        groupOrder: "grp_ord",
        groupId: "grp_id",
        finalGroupInd: "grp_last",
        ackReqd: "ack_wanted",
        ackResendTimes: "ack_tries",
        ackDateRecv: "ack_at",
        encrypt: "crypt",
        error: "failed",
      },
    },
  };
}

/** The suites that must hold on any layout run on both maps. */
export const NAME_MAPS = [
  { layout: "the upstream DDL", unique: uniqueNames },
  { layout: "a renamed map", unique: uniqueRenamedNames },
] as const;

/** The server's UTC now, as a raw SQL value for mysql2's escaping. */
const UTC_NOW = { toSqlString: () => "UTC_TIMESTAMP()" };

/**
 * The upstream's side of the inbound table, in SQL built from `names`: inserts a committed row as
 * the upstream does (`DATE_RECEIVED` now in UTC, `STATUS` 'VALID', unless `extra` says otherwise)
 * and reads columns back by role.
 */
export function upstreamInbound(upstream: Pool, names: MailboxNames) {
  const { table, columns: c } = quoteMailboxNames(names).inbound;
  const insertSql = (extra: Partial<Record<keyof InboundColumns, unknown>>) => {
    const given = { dateReceived: UTC_NOW, status: "VALID", ...extra };
    const roles = ["clobMsg", ...Object.keys(given)] as (keyof InboundColumns)[];
    return {
      sql: `INSERT INTO ${table} (${roles.map((r) => c[r]).join(", ")}) VALUES `,
      row: (raw: string | null) => [raw, ...Object.values(given)],
    };
  };
  return {
    table,
    columns: c,
    /** Inserts and commits one row; returns its id. */
    async insert(raw: string | null, extra: Partial<Record<keyof InboundColumns, unknown>> = {}): Promise<number> {
      const { sql, row } = insertSql(extra);
      const [r] = await upstream.query(`${sql}?`, [[row(raw)]]);
      return Number((r as { insertId: number }).insertId);
    },
    /** Inserts in multi-row statements (the upstream at full speed); returns the ids. */
    async insertMany(raws: readonly string[]): Promise<number[]> {
      const { sql, row } = insertSql({});
      const ids: number[] = [];
      for (let i = 0; i < raws.length; i += 500) {
        const chunk = raws.slice(i, i + 500);
        const [r] = await upstream.query(`${sql}?`, [chunk.map(row)]);
        const first = Number((r as { insertId: number }).insertId);
        // A multi-row insert gets consecutive ids (innodb_autoinc_lock_mode <= 1, or alone on the table).
        for (let k = 0; k < chunk.length; k++) ids.push(first + k);
      }
      return ids;
    },
    /** Ids whose `DATE_PROCESSED` is still NULL. */
    async unprocessedIds(): Promise<number[]> {
      const [rows] = await upstream.query(`SELECT ${c.id} AS id FROM ${table} WHERE ${c.dateProcessed} IS NULL ORDER BY ${c.id}`);
      return (rows as { id: number }[]).map((r) => Number(r.id));
    },
  };
}

/** Builds an ignorable SIS message (LDM, SKIPPED `ignored:LDM`) with a distinct SEQN. */
export function ldmXml(seqn: number): string {
  return (
    `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305102205</DTTM><TYPE>LDM</TYPE><STYP>NONE</STYP></META>` +
    `<LDM><FLID>900101</FLID><TEXT><![CDATA[LDM\nCZ3101/05.B5948.Y300.2/6]]></TEXT></LDM></MSG>`
  );
}
