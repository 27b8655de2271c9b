/**
 * The mailbox's table and column names, by role. The tables belong to the upstream, so every name
 * is configuration (WIRE.md "Mailbox tables"); the defaults are the upstream's DDL. Every statement
 * the adapter runs is built from a resolved map through {@link quoteMailboxNames}.
 */

/** Columns of the inbound table (`cminmsgs`). */
export interface InboundColumns {
  /** `BIGINT AUTO_INCREMENT`: the `MSG_ID`, the FIFO order. */
  readonly id: string;
  /** `MEDIUMTEXT NOT NULL`: the raw XML. */
  readonly clobMsg: string;
  readonly dateReceived: string;
  /** NULL until msgx backfills it (UTC). */
  readonly dateProcessed: string;
  readonly subsystemName: string;
  readonly subsystemSequence: string;
  readonly subsystemDateSent: string;
  readonly subsystemType: string;
  readonly subsystemSubtype: string;
  readonly status: string;
}

/** Columns of the outbound table (`coutmsgs`). */
export interface OutboundColumns {
  readonly id: string;
  readonly clobMsg: string;
  readonly dateInserted: string;
  /** Stamped by the upstream's sender when it took the row. */
  readonly dateSent: string;
  /** The one upstream column without the table prefix. */
  readonly routingId: string;
  readonly truefalsGroup: string;
  readonly noMessages: string;
  readonly groupOrder: string;
  readonly groupId: string;
  readonly finalGroupInd: string;
  readonly ackReqd: string;
  readonly ackResendTimes: string;
  readonly ackDateRecv: string;
  readonly encrypt: string;
  readonly error: string;
}

export interface TableNames<C> {
  /** `table` or `schema.table`; MySQL on Linux compares table names case-sensitively. */
  readonly table: string;
  readonly columns: C;
}

export interface MailboxNames {
  readonly inbound: TableNames<InboundColumns>;
  readonly outbound: TableNames<OutboundColumns>;
}

/** A map given in part: whatever is left out keeps the upstream's name. */
export interface MailboxNamesInput {
  readonly inbound?: { readonly table?: string; readonly columns?: Partial<InboundColumns> };
  readonly outbound?: { readonly table?: string; readonly columns?: Partial<OutboundColumns> };
}

/** The upstream's DDL: database `aodbinterface`, lowercase tables, columns prefixed with the table name except `ROUTINGID`. */
export const DEFAULT_MAILBOX_NAMES: MailboxNames = {
  inbound: {
    table: "cminmsgs",
    columns: {
      id: "CMINMSGS_ID",
      clobMsg: "CMINMSGS_CLOB_MSG",
      dateReceived: "CMINMSGS_DATE_RECEIVED",
      dateProcessed: "CMINMSGS_DATE_PROCESSED",
      subsystemName: "CMINMSGS_SUBSYSTEM_NAME",
      subsystemSequence: "CMINMSGS_SUBSYSTEM_SEQUENCE",
      subsystemDateSent: "CMINMSGS_SUBSYSTEM_DATE_SENT",
      subsystemType: "CMINMSGS_SUBSYSTEM_TYPE",
      subsystemSubtype: "CMINMSGS_SUBSYSTEM_SUBTYPE",
      status: "CMINMSGS_STATUS",
    },
  },
  outbound: {
    table: "coutmsgs",
    columns: {
      id: "COUTMSGS_ID",
      clobMsg: "COUTMSGS_CLOB_MSG",
      dateInserted: "COUTMSGS_DATE_INSERTED",
      dateSent: "COUTMSGS_DATE_SENT",
      routingId: "ROUTINGID",
      truefalsGroup: "COUTMSGS_TRUEFALS_GROUP",
      noMessages: "COUTMSGS_NO_MESSAGES",
      groupOrder: "COUTMSGS_GROUP_ORDER",
      groupId: "COUTMSGS_GROUP_ID",
      finalGroupInd: "COUTMSGS_FINAL_GROUP_IND",
      ackReqd: "COUTMSGS_ACK_REQD",
      ackResendTimes: "COUTMSGS_ACK_RESEND_TIMES",
      ackDateRecv: "COUTMSGS_ACK_DATE_RECV",
      encrypt: "COUTMSGS_ENCRYPT",
      error: "COUTMSGS_ERROR",
    },
  },
};

/** A MySQL identifier as msgx accepts it from configuration: unquoted-safe characters, at most 64. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,63}$/;

/** One thing wrong with a map, at the path of the offending name (`inbound.columns.clobMsg`). */
export interface MailboxNameProblem {
  readonly path: readonly string[];
  readonly message: string;
}

const tableProblem = (name: unknown): string | null =>
  typeof name === "string" && name.split(".").length <= 2 && name.split(".").every((p) => IDENTIFIER.test(p))
    ? null
    : `not a plain table name (table or schema.table; letters, digits, _ and $, at most 64 each): ${JSON.stringify(name)}`;

const columnProblem = (name: unknown): string | null =>
  typeof name === "string" && IDENTIFIER.test(name)
    ? null
    : `not a plain column name (letters, digits, _ and $, at most 64, not starting with a digit): ${JSON.stringify(name)}`;

/**
 * Every problem of a complete map: a name that is not a plain identifier, or one column name used
 * for two roles of a table (MySQL compares column names without case).
 */
export function mailboxNameProblems(names: MailboxNames): MailboxNameProblem[] {
  const problems: MailboxNameProblem[] = [];
  for (const side of ["inbound", "outbound"] as const) {
    const { table, columns } = names[side];
    const bad = tableProblem(table);
    if (bad !== null) problems.push({ path: [side, "table"], message: bad });
    const seen = new Map<string, string>();
    for (const [role, column] of Object.entries(columns) as [string, unknown][]) {
      const problem = columnProblem(column);
      if (problem !== null) {
        problems.push({ path: [side, "columns", role], message: problem });
        continue;
      }
      const key = (column as string).toLowerCase();
      const other = seen.get(key);
      if (other !== undefined) problems.push({ path: [side, "columns", role], message: `${JSON.stringify(column)} is already the ${other} column` });
      else seen.set(key, role);
    }
  }
  return problems;
}

/** Merges `input` over the upstream's names and checks the result (a `RangeError` lists every problem). */
export function resolveMailboxNames(input: MailboxNamesInput = {}): MailboxNames {
  const d = DEFAULT_MAILBOX_NAMES;
  const names: MailboxNames = {
    inbound: { table: input.inbound?.table ?? d.inbound.table, columns: { ...d.inbound.columns, ...input.inbound?.columns } },
    outbound: { table: input.outbound?.table ?? d.outbound.table, columns: { ...d.outbound.columns, ...input.outbound?.columns } },
  };
  const problems = mailboxNameProblems(names);
  if (problems.length > 0) throw new RangeError(`mailbox names: ${problems.map((p) => `${p.path.join(".")}: ${p.message}`).join("; ")}`);
  return names;
}

/** A resolved map with every name quoted for SQL (`` `schema`.`table` ``, `` `COLUMN` ``). */
export interface QuotedMailboxNames extends MailboxNames {
  readonly quoted: true;
}

const quote = (identifier: string): string => `\`${identifier}\``;

/**
 * The map as SQL text. Names were checked by {@link resolveMailboxNames}; they are checked again
 * here, so no unchecked name can reach a statement.
 */
export function quoteMailboxNames(names: MailboxNames): QuotedMailboxNames {
  const problems = mailboxNameProblems(names);
  if (problems.length > 0) throw new RangeError(`mailbox names: ${problems.map((p) => `${p.path.join(".")}: ${p.message}`).join("; ")}`);
  const quoteColumns = <C extends object>(columns: C): C =>
    Object.fromEntries(Object.entries(columns).map(([role, name]) => [role, quote(name as string)])) as C;
  return {
    quoted: true,
    inbound: { table: names.inbound.table.split(".").map(quote).join("."), columns: quoteColumns(names.inbound.columns) },
    outbound: { table: names.outbound.table.split(".").map(quote).join("."), columns: quoteColumns(names.outbound.columns) },
  };
}
