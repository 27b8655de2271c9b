import { sql } from "kysely";
import type { Db } from "./db.js";

/** Ends a PENDING event DEAD; the row stays as the dead-letter record. */
export async function markDead(db: Db, eventId: number, error: string, attempts: number): Promise<void> {
  await sql`
    UPDATE msg_event SET status = 'DEAD', attempts = ${attempts}::integer, next_attempt_at = NULL, last_error = ${error}
    WHERE event_id = ${eventId}::bigint AND status = 'PENDING'`.execute(db);
}
