import { isMsgxError, MsgxError, StaleRunError } from "@msgx/core";
import { sql, type ControlledTransaction, type Kysely } from "kysely";
import type { LockKeys } from "./lock-keys.js";
import { mapPgError, pgCall } from "./pg-error-map.js";
import type { Db } from "./queries/db.js";
import { pipelineEnter } from "./queries/pipeline-epoch.js";

/** Whether a finished body's result is committed; a result it refuses is rolled back and returned. */
export interface PgTransactionOptions<T> {
  /** Default: always commit. */
  readonly commitIf?: (result: T) => boolean;
}

/**
 * Runs `fn` in one transaction: BEGIN, the body, COMMIT. A failing body rolls back and rethrows
 * as is; a failing COMMIT rolls back (when the connection still allows it) and is mapped as a
 * commit error, so a connection lost there is `COMMIT_UNKNOWN`. A result `commitIf` refuses is
 * rolled back and returned. Every store of this package opens its transactions here.
 */
export async function pgTransaction<DB, T>(
  db: Kysely<DB>,
  what: string,
  fn: (trx: ControlledTransaction<DB>) => Promise<T>,
  options: PgTransactionOptions<T> = {},
): Promise<T> {
  const trx = await pgCall(`${what}: begin`, () => db.startTransaction().execute());
  let result: T;
  try {
    result = await fn(trx);
  } catch (e) {
    await rollbackQuietly(trx);
    throw e;
  }
  if (options.commitIf && !options.commitIf(result)) {
    await rollbackQuietly(trx);
    return result;
  }
  try {
    await trx.commit().execute();
  } catch (e) {
    await rollbackQuietly(trx);
    throw mapPgError(e, `${what}: commit`, "commit");
  }
  return result;
}

/**
 * `pgTransaction` with `withBegin` — statements of the simple protocol (no parameters: trusted
 * literals only) — sent in the same round trip as the BEGIN. kysely's transaction API sends its
 * BEGIN alone, so this one sends its own BEGIN, COMMIT and ROLLBACK as text on a connection of
 * its own. The results of `withBegin` are not read (the driver does not hand them back); an error
 * among them rolls back and fails as a `begin` error before `fn` runs. A connection whose
 * ROLLBACK fails has lost its socket, and the pool drops such a client rather than reuse it.
 */
export function pgTransactionWith<DB, T>(db: Kysely<DB>, what: string, withBegin: string, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  const begin = `BEGIN; ${withBegin}`;
  let connected = false;
  return db
    .connection()
    .execute(async (trx) => {
      connected = true;
      try {
        await sql.raw(begin).execute(trx);
      } catch (e) {
        // BEGIN may have opened the transaction before a statement sent with it failed.
        await rollbackConnection(trx);
        throw mapPgError(e, `${what}: begin`);
      }
      let result: T;
      try {
        result = await fn(trx);
      } catch (e) {
        await rollbackConnection(trx);
        throw e;
      }
      try {
        const { rows } = await sql<{ command?: string }>`COMMIT`.execute(trx);
        // PostgreSQL completes COMMIT with a ROLLBACK tag when an earlier error aborted the
        // transaction (the pg driver reports the tag as a row).
        if (rows[0]?.command === "ROLLBACK") throw new MsgxError("INFRA", `${what}: commit: the transaction was aborted, nothing was committed`);
      } catch (e) {
        await rollbackConnection(trx);
        throw mapPgError(e, `${what}: commit`, "commit");
      }
      return result;
    })
    .catch((e: unknown) => {
      // Only a failure to get a connection is the driver's here; the rest was mapped (or is the body's own).
      throw connected ? e : mapPgError(e, `${what}: begin`);
    });
}

/** How many tries a store gives a transaction that hits a CONFLICT: the option, at least 1; default 3. */
export const conflictAttemptsOf = (requested: number | undefined): number => Math.max(1, requested ?? 3);

/**
 * Runs `once` again while it throws `CONFLICT` (serialization failure, deadlock: the mapped
 * SQLSTATEs of class 40), `attempts` times in all; any other error, the last conflict, or a
 * `StaleRunError` (its caller decides again) leaves.
 */
export async function retryOnConflict<T>(attempts: number, once: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (e) {
      if (isMsgxError(e) && e.kind === "CONFLICT" && !(e instanceof StaleRunError) && attempt < attempts) continue;
      throw e;
    }
  }
}

/**
 * One pipeline-writer transaction: `pg_advisory_xact_lock` on the pipeline key, then the
 * leadership epoch read under it; a stale `fence` is refused (`FENCED`) before `fn` writes
 * anything. So pipeline runs and maintenance writes are one writer at a time, and a deposed
 * leader writes nothing. The lock, the epoch and the check are one call sent with the BEGIN
 * (`pipelineEnter`): one round trip. With `bumpGeneration` the same call moves the state
 * generation on (`PipelineStore.loadRunState`). The whole transaction is retried on CONFLICT
 * (`retryOnConflict`). `fn` maps its own driver errors; anything it throws passes through unchanged.
 */
export function pipelineTransaction<T>(
  db: Db,
  options: {
    readonly keys: LockKeys;
    readonly what: string;
    readonly fence: number | undefined;
    readonly conflictAttempts: number;
    readonly bumpGeneration?: boolean;
  },
  fn: (trx: Db) => Promise<T>,
): Promise<T> {
  const { keys, what, fence } = options;
  const withBegin = pipelineEnter(keys, fence, options.bumpGeneration);
  return retryOnConflict(options.conflictAttempts, () => pgTransactionWith(db, what, withBegin, fn));
}

async function rollbackQuietly<DB>(trx: ControlledTransaction<DB>): Promise<void> {
  if (trx.isCommitted || trx.isRolledBack) return;
  await trx.rollback().execute().catch(() => undefined);
}

async function rollbackConnection<DB>(db: Kysely<DB>): Promise<void> {
  await sql`ROLLBACK`.execute(db).catch(() => undefined);
}
