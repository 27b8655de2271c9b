import type { OutboxEvent, Target } from "@msgx/core";
import { sql } from "kysely";
import { EVENT_COLUMNS, eventFromRow, type EventRow } from "../rows/event-row.js";
import type { Db } from "./db.js";

/**
 * The PENDING events of `target` in event_id order, at most `limit` (a range scan of the partial
 * index `msg_event_pending_idx`); the store cuts the run with core's `duePrefix`.
 */
export async function pendingEvents(db: Db, target: Target, limit: number, afterEventId = 0): Promise<OutboxEvent[]> {
  const { rows } = await sql<EventRow>`
    SELECT ${sql.raw(EVENT_COLUMNS)} FROM msg_event
    WHERE target = ${target} AND status = 'PENDING' AND event_id > ${afterEventId}::bigint
    ORDER BY event_id LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map(eventFromRow);
}
