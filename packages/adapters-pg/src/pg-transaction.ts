import type { ControlledTransaction, Kysely } from "kysely";
import { mapPgError, pgCall } from "./pg-error-map.js";

/**
 * Runs `fn` in one transaction: BEGIN, the body, COMMIT. A failing body rolls back and rethrows
 * as is; a failing COMMIT rolls back (when the connection still allows it) and is mapped as a
 * commit error, so a connection lost there is `COMMIT_UNKNOWN`. Every store of this package opens
 * its transactions here.
 */
export async function pgTransaction<DB, T>(db: Kysely<DB>, what: string, fn: (trx: ControlledTransaction<DB>) => Promise<T>): Promise<T> {
  const trx = await pgCall(`${what}: begin`, () => db.startTransaction().execute());
  let result: T;
  try {
    result = await fn(trx);
  } catch (e) {
    await rollbackQuietly(trx);
    throw e;
  }
  try {
    await trx.commit().execute();
  } catch (e) {
    await rollbackQuietly(trx);
    throw mapPgError(e, `${what}: commit`, "commit");
  }
  return result;
}

async function rollbackQuietly<DB>(trx: ControlledTransaction<DB>): Promise<void> {
  if (trx.isCommitted || trx.isRolledBack) return;
  await trx.rollback().execute().catch(() => undefined);
}
