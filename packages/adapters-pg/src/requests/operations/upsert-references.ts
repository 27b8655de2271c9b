import type { RefChange } from "../core-requests.js";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { jsonParam } from "../../rows/values.js";

/**
 * Upserts `REF_MASTER` rows by `(rtype, rkey)` in one statement (one JSON parameter, whatever the
 * count); the caller gives each key once.
 */
export async function upsertReferences(db: Db, changes: readonly RefChange[], now: number): Promise<void> {
  if (changes.length === 0) return;
  const rows = changes.map((c) => ({ rtype: c.rtype, rkey: c.rkey, attributes: c.attributes, deleted: c.deleted, msg: c.msgId }));
  await sql`
    INSERT INTO ref_master (rtype, rkey, attributes, deleted, last_msg_id, updated_at)
    SELECT v.rtype, v.rkey, v.attributes, v.deleted, v.msg, ${new Date(now).toISOString()}::timestamptz
    FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS v(rtype text, rkey text, attributes jsonb, deleted boolean, msg bigint)
    ON CONFLICT (rtype, rkey) DO UPDATE SET
      attributes = EXCLUDED.attributes, deleted = EXCLUDED.deleted, last_msg_id = EXCLUDED.last_msg_id, updated_at = EXCLUDED.updated_at`.execute(db);
}
