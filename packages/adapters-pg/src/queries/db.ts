import { sql, type Kysely } from "kysely";
import type { MsgxDatabase } from "../rows/tables.js";

/** A Kysely bound to the msgx tables: the pool, or the connection of an open transaction. */
export type Db = Kysely<MsgxDatabase>;

/**
 * A one-row source to join into an autocommit UPDATE (`FROM`) or DELETE (`USING`): it sets
 * `synchronous_commit` off for that statement's transaction only, so its commit does not wait for
 * the WAL flush. Only for bookkeeping whose loss in a database crash merely repeats idempotent
 * work; WAL is flushed in order, so any later synchronous commit makes it durable too.
 */
export const asyncCommit = sql`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;
