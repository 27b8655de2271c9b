import type { MailboxRow } from "@msgx/core";
import { DATETIME_READ_FORMAT, datetimeToInstant } from "./mysql-datetime.js";
import type { InboundColumns, QuotedMailboxNames } from "./mailbox-names.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

export interface ScanSettings {
  readonly names: QuotedMailboxNames;
  readonly onlyValidStatus: boolean;
  readonly pendingIgnoresDateProcessed: boolean;
  readonly upstreamTimeZone: string;
}

/** The `pending` expression: the filters live in the select list, not in WHERE (see below). */
function pendingSql(s: ScanSettings, c: InboundColumns): string {
  const terms = [
    ...(s.pendingIgnoresDateProcessed ? [] : [`${c.dateProcessed} IS NULL`]),
    ...(s.onlyValidStatus ? [`${c.status} = 'VALID'`] : []),
  ];
  return terms.length === 0 ? "1" : `COALESCE(${terms.join(" AND ")}, 0)`;
}

/**
 * `scan`: the committed rows with `ID > afterId`, ascending, at most `limit`.
 *
 * It deliberately does **not** put `DATE_PROCESSED IS NULL` (or the STATUS filter) in WHERE:
 * the poller's safe horizon (SPEC §2.5) needs every committed id, processed or not, to tell a
 * processed row from a gap. A gap is an id whose insert has not committed yet (or rolled back);
 * the horizon waits for it up to the grace period. If processed rows were filtered out, each
 * would look like a gap and hold the pump for the whole grace. So the filters are computed per
 * row as `pending`, and the poller enqueues only pending rows.
 *
 * A plain autocommit SELECT under READ COMMITTED sees only committed rows; the range on the
 * primary key keeps it cheap however large the table is.
 */
export async function scanRows(sql: SqlRunner, s: ScanSettings, afterId: number, limit: number): Promise<MailboxRow[]> {
  const { table, columns: c } = s.names.inbound;
  const rows = (await sql.query(
    `SELECT ${c.id} AS id, DATE_FORMAT(${c.dateReceived}, '${DATETIME_READ_FORMAT}') AS received, ${pendingSql(s, c)} AS pending ` +
      `FROM ${table} WHERE ${c.id} > ? ORDER BY ${c.id} LIMIT ?`,
    [afterId, limit],
  )) as readonly { id: unknown; received: unknown; pending: unknown }[];
  return rows.map((r) => ({
    msgId: toSafeId(r.id, "scan"),
    // An upstream row without DATE_RECEIVED still has its place in the order; its age is unknown.
    receivedAt: typeof r.received === "string" ? datetimeToInstant(r.received, s.upstreamTimeZone) : 0,
    pending: Number(r.pending) === 1,
  }));
}
