import { sql } from "kysely";
import { asyncCommit } from "./async-commit.js";
import type { Db } from "./db.js";

/**
 * Marks the PENDING events among `eventIds` SENT at `at`, in one statement; others untouched.
 *
 * The commit is asynchronous (`asyncCommit`): a mark is the relay's bookkeeping after the broker
 * already holds the records, and losing the last few marks in a database crash only resends those
 * records, which delivery allows (at least once, consumers dedupe on the event id). Any later
 * synchronous commit (a pipeline run, a DEAD mark) makes every earlier mark durable too. This
 * takes a WAL flush off every relay batch.
 */
export async function markSent(db: Db, eventIds: readonly number[], at: number): Promise<void> {
  if (eventIds.length === 0) return;
  await sql`
    UPDATE msg_event SET status = 'SENT', sent_at = to_timestamp(${at}::bigint / 1000.0), next_attempt_at = NULL
    FROM ${asyncCommit}
    WHERE event_id = ANY(${[...eventIds]}::bigint[]) AND status = 'PENDING'`.execute(db);
}
