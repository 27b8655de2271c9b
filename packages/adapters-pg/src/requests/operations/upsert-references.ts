import type { RefChange } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { jsonParam } from "../../rows/values.js";

/**
 * Upserts `REF_MASTER` rows by `(rtype, rkey)` in one statement (one JSON parameter, whatever the
 * count); the caller gives each key once, with the version the change gave it.
 */
export async function upsertReferences(db: Db, changes: readonly RefChange[], now: number): Promise<void> {
  if (changes.length === 0) return;
  const rows = changes.map((c) => ({ rtype: c.rtype, rkey: c.rkey, fields: c.fields, deleted: c.deleted, version: c.version, msg: c.msgId }));
  await sql`
    INSERT INTO ref_master (rtype, rkey, fields, deleted, version, last_msg_id, updated_at)
    SELECT v.rtype, v.rkey, v.fields, v.deleted, v.version, v.msg, ${new Date(now).toISOString()}::timestamptz
    FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS v(rtype text, rkey text, fields jsonb, deleted boolean, version integer, msg bigint)
    ON CONFLICT (rtype, rkey) DO UPDATE SET
      fields = EXCLUDED.fields, deleted = EXCLUDED.deleted, version = EXCLUDED.version, last_msg_id = EXCLUDED.last_msg_id, updated_at = EXCLUDED.updated_at`.execute(db);
}
