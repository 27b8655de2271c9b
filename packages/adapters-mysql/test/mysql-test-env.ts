import { createConnection, createPool, type Pool, type PoolOptions } from "mysql2/promise";
import { gateService, type ServiceGate } from "@msgx/core/testing";
import { mailboxPoolOptions, type MailboxTables, type MysqlPoolLike } from "@msgx/adapters-mysql";

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
/** Table names no other test (or concurrent run) uses; drop them when done. */
export function uniqueTables(): MailboxTables {
  const tag = `T${process.pid}_${Date.now().toString(36)}_${counter++}`;
  return { inbound: `${tag}_CMINMSGS`, outbound: `${tag}_COUTMSGS` };
}

/** Builds an ignorable SIS message (LDM, SKIPPED `ignored:LDM`) with a distinct SEQN. */
export function ldmXml(seqn: number): string {
  return (
    `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305102205</DTTM><TYPE>LDM</TYPE><STYP>NONE</STYP></META>` +
    `<LDM><FLID>900101</FLID><TEXT><![CDATA[LDM\nCZ3101/05.B5948.Y300.2/6]]></TEXT></LDM></MSG>`
  );
}

/** Inserts `count` rows in multi-row statements (the upstream at full speed); returns their ids. */
export async function insertMany(upstream: Pool, table: string, raws: readonly string[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < raws.length; i += 500) {
    const chunk = raws.slice(i, i + 500);
    const [r] = await upstream.query(`INSERT INTO \`${table}\` (CLOB_MSG) VALUES ?`, [chunk.map((x) => [x])]);
    const first = Number((r as { insertId: number }).insertId);
    // A multi-row insert gets consecutive ids (innodb_autoinc_lock_mode <= 1, or alone on the table).
    for (let k = 0; k < chunk.length; k++) ids.push(first + k);
  }
  return ids;
}
