import type { AuditEntry, AuditRow } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { toMs, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** Appends one operator audit row. */
export async function appendAudit(db: Db, entry: AuditEntry): Promise<void> {
  await appendAuditStatement(entry).execute(db);
}

/** `appendAudit`'s statement, to ride in another round trip. */
export const appendAuditStatement = (entry: AuditEntry): RawBuilder<unknown> => sql`
  INSERT INTO replay_audit (at, operator, action, msg_ids, detail)
  VALUES (to_timestamp(${entry.at}::bigint / 1000.0), ${entry.operator}::text, ${entry.action}::text,
          ${[...entry.msgIds]}::bigint[], ${entry.detail}::text)`;

/** The newest audit rows, newest first; given `beforeAuditId`, only older ones (`PipelineStore.audits`). */
export async function audits(db: Db, limit: number, beforeAuditId?: number): Promise<AuditRow[]> {
  const before = beforeAuditId === undefined ? sql`` : sql`WHERE audit_id < ${beforeAuditId}::bigint`;
  const { rows } = await sql<{ audit_id: unknown; at: unknown; operator: string; action: string; msg_ids: unknown[]; detail: string }>`
    SELECT audit_id, at, operator, action, msg_ids, detail FROM replay_audit ${before}
    ORDER BY audit_id DESC LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map((r) => ({ auditId: toNumber(r.audit_id), at: toMs(r.at), operator: r.operator, action: r.action, msgIds: r.msg_ids.map(toNumber), detail: r.detail }));
}
