import type { MysqlWriteResult } from "./mysql-driver.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

/**
 * `append` (HTTP ingress): inserts the raw XML as the upstream would, one statement that commits
 * on its own (autocommit); the caller returns the id once it did. `DATE_RECEIVED` is written in the
 * upstream's zone, so the column stays uniform with the upstream's own rows; `STATUS` keeps its
 * column default.
 */
export async function appendRow(sql: SqlRunner, table: string, rawXml: string, upstreamTimeZone: string): Promise<number> {
  // The binary protocol: a raw text of megabytes is sent as is, never escaped on our event loop.
  const result = (await sql.execute(
    `INSERT INTO ${table} (CLOB_MSG, DATE_RECEIVED) VALUES (?, CONVERT_TZ(UTC_TIMESTAMP(3), '+00:00', ?))`,
    [rawXml, upstreamTimeZone],
  )) as MysqlWriteResult;
  return toSafeId(result.insertId, "append");
}
