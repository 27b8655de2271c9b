import type { OutboundQuery, OutboundRow } from "@msgx/core";
import type { OutboundColumns, QuotedMailboxNames } from "./mailbox-names.js";
import { DATETIME_READ_FORMAT, datetimeToInstant, instantToDatetime } from "./mysql-datetime.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

interface Row {
  id: unknown;
  routingId: unknown;
  text: unknown;
  inserted: unknown;
  sent: unknown;
  acked: unknown;
  error: unknown;
}

const selectList = (c: OutboundColumns): string =>
  `${c.id} AS id, ${c.routingId} AS routingId, ${c.clobMsg} AS text, ` +
  `DATE_FORMAT(${c.dateInserted}, '${DATETIME_READ_FORMAT}') AS inserted, DATE_FORMAT(${c.dateSent}, '${DATETIME_READ_FORMAT}') AS sent, ` +
  `DATE_FORMAT(${c.ackDateRecv}, '${DATETIME_READ_FORMAT}') AS acked, ${c.error} AS error`;

/**
 * `find` on the outbound table. By content, SQL narrows by `ROUTINGID`, time and `CLOB_MSG = ?`
 * (which compares by the column's collation, so it may match case or trailing-space variants),
 * then the text is compared exactly here.
 */
export async function findOutbound(sql: SqlRunner, names: QuotedMailboxNames, query: OutboundQuery, zone: string): Promise<OutboundRow[]> {
  const { table, columns: c } = names.outbound;
  let rows: readonly Row[];
  if ("ids" in query) {
    if (query.ids.length === 0) return [];
    rows = (await sql.query(`SELECT ${selectList(c)} FROM ${table} WHERE ${c.id} IN (?) ORDER BY ${c.id}`, [[...query.ids]])) as readonly Row[];
  } else {
    // instantToDatetime truncates to the second, so a row stored to the second is never missed.
    const since = query.insertedSince === undefined ? [] : [instantToDatetime(query.insertedSince, zone)];
    rows = (await sql.query(
      `SELECT ${selectList(c)} FROM ${table} WHERE ${c.routingId} = ? ${since.length ? `AND ${c.dateInserted} >= ? ` : ""}AND ${c.clobMsg} = ? ORDER BY ${c.id}`,
      [query.routingId, ...since, query.rawXml],
    )) as readonly Row[];
  }
  const found = rows.map((r) => toOutboundRow(r, zone));
  return "ids" in query ? found : found.filter((r) => r.rawXml === query.rawXml && r.routingId === query.routingId);
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : null);
const instant = (v: unknown, zone: string): number | null => (typeof v === "string" ? datetimeToInstant(v, zone) : null);

/**
 * The upstream's table has no acknowledgement status or text, only `ACK_DATE_RECV` and the
 * `ERROR` flag: the port's `ack` is read from those. `status` is `ERROR` when the flag is set,
 * `ACKED` when an acknowledgement was received, else null; `text` is always null.
 */
function toOutboundRow(r: Row, zone: string): OutboundRow {
  const at = instant(r.acked, zone);
  const error = r.error !== null && r.error !== undefined && Number(r.error) !== 0;
  return {
    id: toSafeId(r.id, "outbound find"),
    routingId: text(r.routingId) ?? "",
    rawXml: text(r.text) ?? "",
    insertedAt: instant(r.inserted, zone) ?? 0,
    sentAt: instant(r.sent, zone),
    ack: { status: error ? "ERROR" : at !== null ? "ACKED" : null, text: null, at },
  };
}
