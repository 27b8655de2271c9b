import type { AuditEntry } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "./db.js";

/** Appends one operator audit row. */
export async function appendAudit(db: Db, entry: AuditEntry): Promise<void> {
  await sql`
    INSERT INTO replay_audit (at, operator, action, msg_ids, detail)
    VALUES (to_timestamp(${entry.at}::bigint / 1000.0), ${entry.operator}, ${entry.action},
            ${[...entry.msgIds]}::bigint[], ${entry.detail})`.execute(db);
}
