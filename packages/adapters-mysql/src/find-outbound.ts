import type { OutboundQuery, OutboundRow } from "./outbound-mailbox.js";
import { DATETIME_READ_FORMAT, datetimeToInstant, instantToDatetime } from "./mysql-datetime.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

interface Row {
  id: unknown;
  routingId: unknown;
  text: unknown;
  inserted: unknown;
  sent: unknown;
  ackStatus: unknown;
  ackText: unknown;
  acked: unknown;
}

const COLUMNS =
  `ID AS id, ROUTINGID AS routingId, CLOB_MSG AS text, ` +
  `DATE_FORMAT(DATE_INSERTED, '${DATETIME_READ_FORMAT}') AS inserted, DATE_FORMAT(DATE_SENT, '${DATETIME_READ_FORMAT}') AS sent, ` +
  `ACK_STATUS AS ackStatus, ACK_TEXT AS ackText, DATE_FORMAT(DATE_ACK, '${DATETIME_READ_FORMAT}') AS acked`;

/**
 * `find` on the outbound table. By content, SQL narrows by `ROUTINGID`, time and `CLOB_MSG = ?`
 * (which compares by the column's collation, so it may match case or trailing-space variants),
 * then the text is compared exactly here.
 */
export async function findOutbound(sql: SqlRunner, table: string, query: OutboundQuery, zone: string): Promise<OutboundRow[]> {
  let rows: readonly Row[];
  if ("ids" in query) {
    if (query.ids.length === 0) return [];
    rows = (await sql.query(`SELECT ${COLUMNS} FROM ${table} WHERE ID IN (?) ORDER BY ID`, [[...query.ids]])) as readonly Row[];
  } else {
    const since = query.insertedSince === undefined ? [] : [instantToDatetime(query.insertedSince, zone)];
    rows = (await sql.query(
      `SELECT ${COLUMNS} FROM ${table} WHERE ROUTINGID = ? ${since.length ? "AND DATE_INSERTED >= ? " : ""}AND CLOB_MSG = ? ORDER BY ID`,
      [query.routingId, ...since, query.rawXml],
    )) as readonly Row[];
  }
  const found = rows.map((r) => toOutboundRow(r, zone));
  return "ids" in query ? found : found.filter((r) => r.rawXml === query.rawXml && r.routingId === query.routingId);
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : null);
const instant = (v: unknown, zone: string): number | null => (typeof v === "string" ? datetimeToInstant(v, zone) : null);

function toOutboundRow(r: Row, zone: string): OutboundRow {
  return {
    id: toSafeId(r.id, "outbound find"),
    routingId: text(r.routingId) ?? "",
    rawXml: text(r.text) ?? "",
    insertedAt: instant(r.inserted, zone) ?? 0,
    sentAt: instant(r.sent, zone),
    ack: { status: text(r.ackStatus), text: text(r.ackText), at: instant(r.acked, zone) },
  };
}
