import { DEFAULT_MAILBOX_TABLES, type MailboxTables } from "./mailbox-options.js";
import type { MysqlPoolLike } from "./mysql-driver.js";
import { DEFAULT_MYSQL_TIMEOUTS, withConnection } from "./mysql-session.js";
import { quoteTable } from "./quote-table.js";

/**
 * The two mailbox tables as WIRE.md describes them, for tests and demos. In production they belong
 * to the upstream and msgx never creates or alters them. `sql/mailbox.ddl.sql` is this text for
 * the default names (a unit test keeps the two identical).
 */
export function mailboxDdl(tables: MailboxTables = DEFAULT_MAILBOX_TABLES): readonly string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoteTable(tables.inbound)} (
  ID BIGINT NOT NULL AUTO_INCREMENT,
  CLOB_MSG LONGTEXT NULL,
  DATE_RECEIVED DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  DATE_PROCESSED DATETIME NULL,
  SUBSYSTEM_NAME VARCHAR(4) NULL,
  SUBSYSTEM_SEQUENCE MEDIUMINT NULL,
  SUBSYSTEM_DATE_SENT DATETIME NULL,
  SUBSYSTEM_TYPE VARCHAR(4) NULL,
  SUBSYSTEM_SUBTYPE VARCHAR(4) NULL,
  STATUS VARCHAR(16) NULL DEFAULT 'VALID',
  PRIMARY KEY (ID)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci`,
    `CREATE TABLE IF NOT EXISTS ${quoteTable(tables.outbound)} (
  ID BIGINT NOT NULL AUTO_INCREMENT,
  CLOB_MSG LONGTEXT NOT NULL,
  ROUTINGID VARCHAR(16) NOT NULL,
  DATE_INSERTED DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  DATE_SENT DATETIME NULL,
  ACK_STATUS VARCHAR(16) NULL,
  ACK_TEXT VARCHAR(255) NULL,
  DATE_ACK DATETIME NULL,
  PRIMARY KEY (ID),
  KEY IX_COUTMSGS_ROUTING (ROUTINGID, DATE_INSERTED)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci`,
  ];
}

/** Creates both tables if absent. For tests and demos only. */
export function createMailboxTables(pool: MysqlPoolLike, tables: MailboxTables = DEFAULT_MAILBOX_TABLES): Promise<void> {
  return withConnection(pool, DEFAULT_MYSQL_TIMEOUTS, "create mailbox tables", async (sql) => {
    for (const statement of mailboxDdl(tables)) await sql.query(statement);
  });
}

/** Drops both tables. For tests and demos only. */
export function dropMailboxTables(pool: MysqlPoolLike, tables: MailboxTables = DEFAULT_MAILBOX_TABLES): Promise<void> {
  return withConnection(pool, DEFAULT_MYSQL_TIMEOUTS, "drop mailbox tables", async (sql) => {
    await sql.query(`DROP TABLE IF EXISTS ${quoteTable(tables.inbound)}, ${quoteTable(tables.outbound)}`);
  });
}
