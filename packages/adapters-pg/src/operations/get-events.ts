import type { OutboxEvent } from "@msgx/core";
import { sql } from "kysely";
import { EVENT_COLUMNS, eventFromRow, type EventRow } from "../rows/event-row.js";
import type { Db } from "./db.js";

/** The stored events among `eventIds` (any status), ascending. */
export async function getEvents(db: Db, eventIds: readonly number[]): Promise<OutboxEvent[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await sql<EventRow>`
    SELECT ${sql.raw(EVENT_COLUMNS)} FROM msg_event
    WHERE event_id = ANY(${[...eventIds]}::bigint[]) ORDER BY event_id`.execute(db);
  return rows.map(eventFromRow);
}
