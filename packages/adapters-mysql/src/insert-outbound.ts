import type { QuotedMailboxNames } from "./mailbox-names.js";
import type { MysqlWriteResult } from "./mysql-driver.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";

/**
 * Inserts one outbound request inside the caller's transaction (the caller returns the id after
 * COMMIT), with every column the upstream's table requires: `DATE_INSERTED` in the upstream's
 * zone, like the upstream's own rows (stored to the column's precision), and the NOT NULL flags
 * (`TRUEFALS_GROUP`, `FINAL_GROUP_IND`, `ACK_REQD`, `ENCRYPT`, `ERROR`) as 0, as the upstream's
 * client writes them: a single message, no group, no acknowledgement asked, not encrypted, no
 * error. The group counters (`NO_MESSAGES`, `GROUP_ORDER`, `GROUP_ID`, `ACK_RESEND_TIMES`) are
 * left to the table.
 */
export async function insertOutbound(
  sql: SqlRunner,
  names: QuotedMailboxNames,
  rawXml: string,
  routingId: string,
  upstreamTimeZone: string,
): Promise<number> {
  const { table, columns: c } = names.outbound;
  const flags = [c.truefalsGroup, c.finalGroupInd, c.ackReqd, c.encrypt, c.error];
  const result = (await sql.query(
    `INSERT INTO ${table} (${c.clobMsg}, ${c.routingId}, ${c.dateInserted}, ${flags.join(", ")}) ` +
      `VALUES (?, ?, CONVERT_TZ(UTC_TIMESTAMP(3), '+00:00', ?), ${flags.map(() => "0").join(", ")})`,
    [rawXml, routingId, upstreamTimeZone],
  )) as MysqlWriteResult;
  return toSafeId(result.insertId, "outbound insert");
}
