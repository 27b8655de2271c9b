import { MsgxError } from "@msgx/core";
import type { QuotedMailboxNames } from "./mailbox-names.js";
import type { MysqlWriteResult } from "./mysql-driver.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

/**
 * The columns an append writes and one row's values: the raw XML, `DATE_RECEIVED` in the
 * upstream's zone (so the column stays uniform with the upstream's own rows; stored to the
 * column's precision) and `STATUS` `'VALID'`, as the upstream's rows carry it (its table has no
 * default for it, and the STATUS filter would otherwise never take an appended row).
 */
function appendSql(names: QuotedMailboxNames): { readonly into: string; readonly row: string } {
  const { table, columns: c } = names.inbound;
  return {
    into: `INSERT INTO ${table} (${c.clobMsg}, ${c.dateReceived}, ${c.status}) VALUES `,
    row: "(?, CONVERT_TZ(UTC_TIMESTAMP(3), '+00:00', ?), 'VALID')",
  };
}

/**
 * `append` (HTTP ingress): inserts the raw XML as the upstream would, one statement that commits
 * on its own (autocommit); the caller returns the id once it did.
 */
export async function appendRow(sql: SqlRunner, names: QuotedMailboxNames, rawXml: string, upstreamTimeZone: string): Promise<number> {
  const { into, row } = appendSql(names);
  // The binary protocol: a raw text of megabytes is sent as is, never escaped on our event loop.
  const result = (await sql.execute(into + row, [rawXml, upstreamTimeZone])) as MysqlWriteResult;
  return toSafeId(result.insertId, "append");
}

/**
 * Several appends in one autocommit INSERT, in order; their ids in the same order. The server
 * gives the rows of one multi-row INSERT consecutive ids (`increment` apart) only under
 * `innodb_autoinc_lock_mode` 0 or 1 — the caller checks that (`appendIdsAreConsecutive`) before
 * it groups appends at all. The row count is checked too.
 */
export async function appendRows(
  sql: SqlRunner,
  names: QuotedMailboxNames,
  rawXmls: readonly string[],
  upstreamTimeZone: string,
  increment: number,
): Promise<number[]> {
  const { into, row } = appendSql(names);
  const result = (await sql.execute(
    into + rawXmls.map(() => row).join(", "),
    rawXmls.flatMap((raw) => [raw, upstreamTimeZone]),
  )) as MysqlWriteResult;
  if (Number(result.affectedRows) !== rawXmls.length) {
    // The rows are there, or some of them: writing them again could only duplicate them.
    throw new MsgxError("COMMIT_UNKNOWN", `append: ${rawXmls.length} rows sent, ${String(result.affectedRows)} inserted`);
  }
  const first = toSafeId(result.insertId, "append");
  return rawXmls.map((_, i) => first + i * increment);
}

/**
 * Whether the rows of one multi-row INSERT get consecutive ids on this server, and how far apart:
 * true under `innodb_autoinc_lock_mode` 0 ("traditional") and 1 ("consecutive", MariaDB's and
 * MySQL 5.7's default); not under 2 ("interleaved", MySQL 8's default), where another session's
 * insert can take ids in between.
 */
export async function appendIdsAreConsecutive(sql: SqlRunner): Promise<{ readonly consecutive: boolean; readonly increment: number }> {
  const rows = (await sql.query("SELECT @@GLOBAL.innodb_autoinc_lock_mode AS mode, @@SESSION.auto_increment_increment AS increment")) as readonly {
    mode: unknown;
    increment: unknown;
  }[];
  const mode = Number(rows[0]?.mode);
  const increment = Number(rows[0]?.increment);
  return { consecutive: (mode === 0 || mode === 1) && Number.isSafeInteger(increment) && increment >= 1, increment };
}
