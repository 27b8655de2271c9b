import { isMsgxError, MsgxError } from "@msgx/core";
import type { ControlledTransaction, Kysely } from "kysely";
import type { LockKeys } from "./lock-keys.js";
import { mapPgError, pgCall } from "./pg-error-map.js";
import type { Db } from "./queries/db.js";
import { pipelineEpoch } from "./queries/pipeline-epoch.js";

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
 * Runs `once` again while it throws `CONFLICT` (serialization failure, deadlock: the mapped
 * SQLSTATEs of class 40), `attempts` times in all; any other error, or the last conflict, leaves.
 */
export async function retryOnConflict<T>(attempts: number, once: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (e) {
      if (isMsgxError(e) && e.kind === "CONFLICT" && attempt < attempts) continue;
      throw e;
    }
  }
}

/**
 * One pipeline-writer transaction: `pg_advisory_xact_lock` on the pipeline key, then the
 * leadership epoch read under it; a stale `fence` is refused (`FENCED`) before `fn` writes
 * anything. So pipeline runs and maintenance writes are one writer at a time, and a deposed
 * leader writes nothing. The whole transaction is retried on CONFLICT (`retryOnConflict`). `fn`
 * maps its own driver errors; anything it throws passes through unchanged.
 */
export function pipelineTransaction<T>(
  db: Db,
  options: { readonly keys: LockKeys; readonly what: string; readonly fence: number | undefined; readonly conflictAttempts: number },
  fn: (trx: Db) => Promise<T>,
): Promise<T> {
  const { keys, what, fence } = options;
  return retryOnConflict(options.conflictAttempts, () =>
    pgTransaction(db, what, async (trx) => {
      const epoch = await pgCall(`${what}: pipeline lock`, () => pipelineEpoch(trx, keys));
      if (fence !== undefined && fence !== epoch) throw new MsgxError("FENCED", `fence ${fence} is stale (epoch ${epoch})`);
      return await fn(trx);
    }),
  );
}

async function rollbackQuietly<DB>(trx: ControlledTransaction<DB>): Promise<void> {
  if (trx.isCommitted || trx.isRolledBack) return;
  await trx.rollback().execute().catch(() => undefined);
}
