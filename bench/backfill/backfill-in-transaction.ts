/**
 * The mailbox write-back as it was before issue 32 item 8, kept as the benchmark's reference: per
 * chunk `START TRANSACTION`, `SELECT … FOR UPDATE` of the rows still open, the same UPDATE over
 * them, `COMMIT` (four round trips). The statement it writes is the adapter's own.
 */
import type { BackfillEntry, BackfillResult } from "@msgx/core";
import { CMINMSGS_SUBSYSTEM_COLUMNS } from "@msgx/core";
import { backfillUpdate, planBackfill } from "../../packages/adapters-mysql/src/backfill-rows.js";
import type { QuotedMailboxNames } from "../../packages/adapters-mysql/src/mailbox-names.js";
import type { MysqlPoolLike } from "../../packages/adapters-mysql/src/mysql-driver.js";
import { DEFAULT_MYSQL_TIMEOUTS, withTransaction } from "../../packages/adapters-mysql/src/mysql-session.js";

export function backfillInTransaction(pool: MysqlPoolLike, names: QuotedMailboxNames, entries: readonly BackfillEntry[]): Promise<BackfillResult> {
  const { table, columns: c } = names.inbound;
  return withTransaction(pool, DEFAULT_MYSQL_TIMEOUTS, "bench backfill", async (sql) => {
    const planned = planBackfill(entries, CMINMSGS_SUBSYSTEM_COLUMNS);
    const locked = (await sql.query(`SELECT ${c.id} AS id FROM ${table} WHERE ${c.id} IN (?) AND ${c.dateProcessed} IS NULL FOR UPDATE`, [
      planned.map((p) => p.msgId),
    ])) as readonly { id: number }[];
    const open = new Set(locked.map((r) => Number(r.id)));
    const toWrite = planned.filter((p) => open.has(p.msgId));
    if (toWrite.length > 0) {
      const update = backfillUpdate(names, toWrite);
      await sql.query(update.sql, update.values);
    }
    return {
      written: toWrite.map((p) => p.msgId),
      alreadyDone: planned.filter((p) => !open.has(p.msgId)).map((p) => p.msgId),
      defects: toWrite.flatMap((p) => (p.defect === null ? [] : [{ msgId: p.msgId, reason: p.defect }])),
    };
  });
}
