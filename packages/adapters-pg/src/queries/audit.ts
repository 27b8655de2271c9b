import type { AuditEntry } from "@msgx/core";
import { sql } from "kysely";
import { toMs, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** Appends one operator audit row. */
export async function appendAudit(db: Db, entry: AuditEntry): Promise<void> {
  await sql`
    INSERT INTO replay_audit (at, operator, action, msg_ids, detail)
    VALUES (to_timestamp(${entry.at}::bigint / 1000.0), ${entry.operator}, ${entry.action},
            ${[...entry.msgIds]}::bigint[], ${entry.detail})`.execute(db);
}

/** The newest audit rows, newest first. */
export async function audits(db: Db, limit: number): Promise<AuditEntry[]> {
  const { rows } = await sql<{ at: unknown; operator: string; action: string; msg_ids: unknown[]; detail: string }>`
    SELECT at, operator, action, msg_ids, detail FROM replay_audit
    ORDER BY audit_id DESC LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map((r) => ({ at: toMs(r.at), operator: r.operator, action: r.action, msgIds: r.msg_ids.map(toNumber), detail: r.detail }));
}
