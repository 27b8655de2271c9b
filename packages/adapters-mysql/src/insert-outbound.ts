import type { MysqlWriteResult } from "./mysql-driver.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

/**
 * Inserts one outbound request inside the caller's transaction (the caller returns the id after
 * COMMIT). `DATE_INSERTED` is written in the upstream's zone, like the upstream's own rows.
 */
export async function insertOutbound(
  sql: SqlRunner,
  table: string,
  rawXml: string,
  routingId: string,
  upstreamTimeZone: string,
): Promise<number> {
  const result = (await sql.query(
    `INSERT INTO ${table} (CLOB_MSG, ROUTINGID, DATE_INSERTED) VALUES (?, ?, CONVERT_TZ(UTC_TIMESTAMP(3), '+00:00', ?))`,
    [rawXml, routingId, upstreamTimeZone],
  )) as MysqlWriteResult;
  return toSafeId(result.insertId, "outbound insert");
}
