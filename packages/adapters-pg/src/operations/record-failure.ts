import { sql } from "kysely";
import type { Db } from "./db.js";

/** Records a failed delivery try of a PENDING event; it stays PENDING. */
export async function recordFailure(db: Db, eventId: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
  await sql`
    UPDATE msg_event SET attempts = ${attempts}::integer, next_attempt_at = to_timestamp(${nextAttemptAt}::bigint / 1000.0),
                         last_error = ${error}
    WHERE event_id = ${eventId}::bigint AND status = 'PENDING'`.execute(db);
}
