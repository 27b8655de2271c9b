import type { ProcRecord } from "@msgx/core";
import { sql } from "kysely";
import { procToJson } from "../rows/proc-row.js";
import { jsonParam } from "../rows/values.js";
import type { WritePart } from "./write-part.js";

/**
 * Writes the new state of existing records in one multi-row UPDATE. A record with no row is an
 * error (the pipeline only decides enqueued messages), as in the in-memory store. A part of a
 * combined write (`executeParts`); none for no records.
 */
export function updateRecordsParts(records: readonly ProcRecord[]): WritePart[] {
  if (records.length === 0) return [];
  // One entry per id, the last one winning, as a map write would.
  const byId = new Map(records.map((r) => [r.msgId, r]));
  return [
    {
      name: "upd_proc_state",
      body: sql`
        UPDATE proc_state p SET
          status = x.status,
          attempts = x.attempts,
          next_attempt_at = to_timestamp(x.next_attempt_at / 1000.0),
          head_since = to_timestamp(x.head_since / 1000.0),
          identity_key = x.identity_key,
          meta = x.meta,
          error_class = x.error_class,
          reason = x.reason,
          history = x.history,
          received_at = to_timestamp(x.received_at / 1000.0),
          updated_at = to_timestamp(x.updated_at / 1000.0)
        FROM jsonb_to_recordset(${jsonParam([...byId.values()].map(procToJson))}::jsonb) AS x(
          msg_id bigint, status text, attempts integer, next_attempt_at bigint, head_since bigint,
          identity_key text, meta jsonb, error_class text, reason text, history jsonb,
          received_at bigint, updated_at bigint)
        WHERE p.msg_id = x.msg_id
        RETURNING 1`,
      expectRows: { count: byId.size, shortfall: (updated) => `no PROC_STATE row for ${byId.size - updated} of ${byId.size} records` },
    },
  ];
}
