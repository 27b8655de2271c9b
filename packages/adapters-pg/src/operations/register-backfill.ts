import type { BackfillEntry } from "@msgx/core";
import { sql } from "kysely";
import { jsonParam } from "../rows/values.js";
import type { WritePart } from "./write-part.js";

/**
 * Registers backfill todos in one multi-row upsert. The first try is the pump's, right after
 * commit; the sweep only sees a todo after `firstDelayMs`.
 */
export function registerBackfillParts(entries: readonly BackfillEntry[], now: number, firstDelayMs: number): WritePart[] {
  if (entries.length === 0) return [];
  // One row per id, the last one winning: an upsert may not touch a row twice in one statement.
  const byId = new Map(entries.map((e) => [e.msgId, e]));
  const rows = [...byId.values()].map((e) => ({ msg_id: e.msgId, processed_at: e.processedAt, meta: e.meta }));
  return [
    {
      name: "ups_backfill_todo",
      body: sql`
        INSERT INTO backfill_todo (msg_id, processed_at, meta, attempts, next_attempt_at, last_error)
        SELECT x.msg_id, to_timestamp(x.processed_at / 1000.0), x.meta, 0, to_timestamp(${now + firstDelayMs}::bigint / 1000.0), NULL
        FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(msg_id bigint, processed_at bigint, meta jsonb)
        ON CONFLICT (msg_id) DO UPDATE SET
          processed_at = EXCLUDED.processed_at, meta = EXCLUDED.meta, attempts = 0,
          next_attempt_at = EXCLUDED.next_attempt_at, last_error = NULL`,
    },
  ];
}
