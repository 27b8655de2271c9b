import { quoteMailboxNames, resolveMailboxNames, type InboundColumns, type MailboxNamesInput, type OutboundColumns } from "./mailbox-names.js";
import type { MysqlPoolLike } from "./mysql-driver.js";
import { DEFAULT_MYSQL_TIMEOUTS, withConnection } from "./mysql-session.js";

/**
 * Column types in the upstream's order. Names, types and nullability are the upstream's where
 * WIRE.md states them; the rest is our reading: `DATETIME` without fraction for every date,
 * `BIGINT` ids, `MEDIUMTEXT NOT NULL` for the outbound text too, `INT`/`BIGINT NULL` for the
 * numeric group columns, no column defaults.
 */
const INBOUND_TYPES: readonly (readonly [keyof InboundColumns, string])[] = [
  ["id", "BIGINT NOT NULL AUTO_INCREMENT"],
  ["clobMsg", "MEDIUMTEXT NOT NULL"],
  ["dateReceived", "DATETIME NULL"],
  ["dateProcessed", "DATETIME NULL"],
  ["subsystemName", "VARCHAR(4) NULL"],
  ["subsystemSequence", "MEDIUMINT NULL"],
  ["subsystemDateSent", "DATETIME NULL"],
  ["subsystemType", "VARCHAR(4) NULL"],
  ["subsystemSubtype", "VARCHAR(4) NULL"],
  ["status", "VARCHAR(20) NULL"],
];

const OUTBOUND_TYPES: readonly (readonly [keyof OutboundColumns, string])[] = [
  ["id", "BIGINT NOT NULL AUTO_INCREMENT"],
  ["clobMsg", "MEDIUMTEXT NOT NULL"],
  ["dateInserted", "DATETIME NOT NULL"],
  ["dateSent", "DATETIME NULL"],
  ["routingId", "VARCHAR(23) NOT NULL"],
  ["truefalsGroup", "TINYINT NOT NULL"],
  ["noMessages", "INT NULL"],
  ["groupOrder", "INT NULL"],
  ["groupId", "BIGINT NULL"],
  ["finalGroupInd", "TINYINT NOT NULL"],
  ["ackReqd", "TINYINT NOT NULL"],
  ["ackResendTimes", "INT NULL"],
  ["ackDateRecv", "DATETIME NULL"],
  ["encrypt", "TINYINT NOT NULL"],
  ["error", "TINYINT NOT NULL"],
];

const createTable = <C>(table: string, columns: C, types: readonly (readonly [keyof C, string])[]): string =>
  `CREATE TABLE IF NOT EXISTS ${table} (\n` +
  types.map(([role, type]) => `  ${String(columns[role])} ${type},\n`).join("") +
  `  PRIMARY KEY (${String(columns[types[0]![0]])})\n) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci`;

/**
 * The two mailbox tables as the upstream's DDL has them (WIRE.md "Mailbox tables"), under the
 * names of `names` (default the upstream's), for tests and demos. In production they belong to
 * the upstream and msgx never creates or alters them. `sql/mailbox.ddl.sql` is this text for the
 * default names (a unit test keeps the two identical).
 */
export function mailboxDdl(names: MailboxNamesInput = {}): readonly string[] {
  const q = quoteMailboxNames(resolveMailboxNames(names));
  return [createTable(q.inbound.table, q.inbound.columns, INBOUND_TYPES), createTable(q.outbound.table, q.outbound.columns, OUTBOUND_TYPES)];
}

/** Creates both tables if absent. For tests and demos only. */
export function createMailboxTables(pool: MysqlPoolLike, names: MailboxNamesInput = {}): Promise<void> {
  return withConnection(pool, DEFAULT_MYSQL_TIMEOUTS, "create mailbox tables", async (sql) => {
    for (const statement of mailboxDdl(names)) await sql.query(statement);
  });
}

/**
 * The mailbox tables of `names` that do not exist, as `schema.table` (the connection's database
 * when the name has none); empty when both are there. Asked of information_schema, so nothing is
 * read from the tables themselves.
 */
export function missingMailboxTables(pool: MysqlPoolLike, names: MailboxNamesInput = {}): Promise<string[]> {
  const resolved = resolveMailboxNames(names);
  return withConnection(pool, DEFAULT_MYSQL_TIMEOUTS, "look up mailbox tables", async (sql) => {
    const missing: string[] = [];
    for (const table of [resolved.inbound.table, resolved.outbound.table]) {
      const [schema, name] = table.includes(".") ? (table.split(".", 2) as [string, string]) : [null, table];
      const rows = (await sql.query("SELECT COALESCE(?, DATABASE()) AS db, COUNT(*) AS n FROM information_schema.tables WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?", [
        schema,
        schema,
        name,
      ])) as { db: string | null; n: number | string }[];
      if (Number(rows[0]?.n ?? 0) === 0) missing.push(`${rows[0]?.db ?? "?"}.${name}`);
    }
    return missing;
  });
}

/** Drops both tables. For tests and demos only. */
export function dropMailboxTables(pool: MysqlPoolLike, names: MailboxNamesInput = {}): Promise<void> {
  const q = quoteMailboxNames(resolveMailboxNames(names));
  return withConnection(pool, DEFAULT_MYSQL_TIMEOUTS, "drop mailbox tables", async (sql) => {
    await sql.query(`DROP TABLE IF EXISTS ${q.inbound.table}, ${q.outbound.table}`);
  });
}
