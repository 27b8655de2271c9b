import type { RawRead } from "@msgx/core";
import type { QuotedMailboxNames } from "./mailbox-names.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

/**
 * `readRaw`: the text of every requested row in one query. A row the query does not return is
 * `{ found: false }`; a failed query throws (as `MsgxError`), so a read error is never taken
 * for a missing row. A NULL text (NOT NULL in the upstream's DDL; a table of another layout may allow it) is
 * "raw text missing" (MALFORMED downstream), also `{ found: false }`.
 */
export async function readRawRows(sql: SqlRunner, names: QuotedMailboxNames, msgIds: readonly number[]): Promise<Map<number, RawRead>> {
  const result = new Map<number, RawRead>(msgIds.map((id) => [id, { found: false }]));
  if (msgIds.length === 0) return result;
  const { table, columns: c } = names.inbound;
  const rows = (await sql.query(`SELECT ${c.id} AS id, ${c.clobMsg} AS text FROM ${table} WHERE ${c.id} IN (?)`, [[...new Set(msgIds)]])) as readonly {
    id: unknown;
    text: unknown;
  }[];
  for (const r of rows) {
    const id = toSafeId(r.id, "readRaw");
    if (typeof r.text === "string") result.set(id, { found: true, text: r.text });
    // mysql2 hands MEDIUMTEXT over as a string in the connection's charset; a Buffer means a
    // binary column or charset: decode it as the UTF-8 the upstream writes.
    else if (Buffer.isBuffer(r.text)) result.set(id, { found: true, text: r.text.toString("utf8") });
  }
  return result;
}
