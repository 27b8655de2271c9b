import type { PgStores } from "@msgx/adapters-pg";
import { MAILBOX_TABLES_HINT, MysqlMailbox, MysqlOutboundMailbox, ShadowMailbox, ShadowOutboundMailbox, mailboxPoolOptions, missingMailboxTables } from "@msgx/adapters-mysql";
import type { Logger, Mailbox, OutboundMailbox } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { mysqlMailboxOptions } from "./mysql-mailbox-options.js";
import type { PartClosers } from "./part-closers.js";

/** Where messages come in and upstream requests go out. */
export interface MailboxParts {
  readonly mailbox: Mailbox;
  readonly outbound: OutboundMailbox;
}

export interface MailboxOptions {
  /** An admin command's mailbox: nothing is said at start about missing tables. */
  readonly admin: boolean;
  /** Told when a MySQL mailbox is being opened. */
  opening(): void;
}

/**
 * The upstream's MySQL cminmsgs (names from `mysql.inbound`/`outbound`), or an embedded table in
 * the same PGlite/PostgreSQL; upstream requests go to the coutmsgs beside it. In shadow mode both
 * are wrapped so that nothing is written to the upstream.
 */
export async function openMailbox(config: MsgxConfig, pg: PgStores, logger: Logger, closers: PartClosers, options: MailboxOptions): Promise<MailboxParts> {
  const opened = config.mysql.url === undefined ? await embeddedMailbox(config, pg) : await mysqlMailbox(config, config.mysql.url, logger, closers, options);
  if (!config.shadow) return opened;
  return { mailbox: new ShadowMailbox(opened.mailbox), outbound: new ShadowOutboundMailbox(opened.outbound) };
}

async function embeddedMailbox(config: MsgxConfig, pg: PgStores): Promise<MailboxParts> {
  return { mailbox: await pg.embeddedMailbox({ onlyValidStatus: config.mysql.onlyValidStatus }), outbound: await pg.embeddedOutbound() };
}

async function mysqlMailbox(config: MsgxConfig, url: string, logger: Logger, closers: PartClosers, options: MailboxOptions): Promise<MailboxParts> {
  options.opening();
  const mysql = await import("mysql2/promise");
  const pool = mysql.createPool({ uri: url, ...mailboxPoolOptions });
  closers.add(() => pool.end());
  const names = { inbound: config.mysql.inbound, outbound: config.mysql.outbound };
  // Said once at start, not found out from every scan's error: which table, and how one is made.
  // Not waited for: a mailbox that is down is the retries' business, not the start's.
  if (!options.admin) {
    void missingMailboxTables(pool as never, names)
      .then((missing) => {
        if (missing.length > 0) logger.error(`mailbox tables missing: ${missing.join(", ")}; POST /cminmsgs/send answers 503 and the intake waits until they exist`, { missing, fix: MAILBOX_TABLES_HINT });
      })
      .catch(() => undefined);
  }
  return {
    mailbox: new MysqlMailbox(pool as never, mysqlMailboxOptions(config)),
    outbound: new MysqlOutboundMailbox(pool as never, { names, upstreamTimeZone: config.mysql.upstreamTimeZone }),
  };
}
