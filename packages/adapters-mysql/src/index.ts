export { MysqlMailbox } from "./mysql-mailbox.js";
export { ShadowMailbox } from "./shadow-mailbox.js";
export { ShadowOutboundMailbox } from "./shadow-outbound-mailbox.js";
export { MysqlOutboundMailbox } from "./mysql-outbound-mailbox.js";
export { DEFAULT_MYSQL_MAILBOX_OPTIONS, resolveMailboxOptions, type MysqlMailboxOptions, type MysqlMailboxOptionsInput } from "./mailbox-options.js";
export {
  DEFAULT_MAILBOX_NAMES,
  resolveMailboxNames,
  mailboxNameProblems,
  quoteMailboxNames,
  type MailboxNames,
  type MailboxNamesInput,
  type MailboxNameProblem,
  type QuotedMailboxNames,
  type InboundColumns,
  type OutboundColumns,
  type TableNames,
} from "./mailbox-names.js";
export { DEFAULT_MYSQL_TIMEOUTS, sessionStatements, type MysqlTimeouts } from "./mysql-session.js";
export { MYSQL_ERROR_RULES, MAILBOX_TABLES_HINT, findMysqlErrorRule, toMsgxError, type MysqlErrorRule } from "./mysql-error-map.js";
export { instantToDatetime, datetimeToInstant, zoneOffsetMinutes } from "./mysql-datetime.js";
export { mailboxDdl, createMailboxTables, dropMailboxTables, missingMailboxTables } from "./mailbox-ddl.js";
export { mailboxPoolOptions } from "./mailbox-pool-options.js";
export type { MysqlPoolLike, MysqlConnectionLike, MysqlQueryOptions, MysqlWriteResult } from "./mysql-driver.js";
