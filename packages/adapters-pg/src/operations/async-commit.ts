import { sql } from "kysely";

/**
 * A one-row source to join into an autocommit UPDATE (`FROM`) or DELETE (`USING`): it sets
 * `synchronous_commit` off for that statement's transaction only, so its commit does not wait for
 * the WAL flush. Only for bookkeeping whose loss in a database crash merely repeats idempotent
 * work; WAL is flushed in order, so any later synchronous commit makes it durable too.
 */
export const asyncCommit = sql`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;
