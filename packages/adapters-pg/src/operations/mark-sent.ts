import { sql } from "kysely";
import type { Db } from "./db.js";

/** Marks the PENDING events among `eventIds` SENT at `at`, in one statement; others untouched. */
export async function markSent(db: Db, eventIds: readonly number[], at: number): Promise<void> {
  if (eventIds.length === 0) return;
  await sql`
    UPDATE msg_event SET status = 'SENT', sent_at = to_timestamp(${at}::bigint / 1000.0), next_attempt_at = NULL
    WHERE event_id = ANY(${[...eventIds]}::bigint[]) AND status = 'PENDING'`.execute(db);
}
