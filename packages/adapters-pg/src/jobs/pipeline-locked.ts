import { pgTransaction } from "../pg-transaction.js";
import { isMsgxError, MsgxError } from "@msgx/core";
import type { LockKeys } from "../lock-keys.js";
import type { Db } from "../operations/db.js";
import { pipelineEpoch } from "../operations/pipeline-epoch.js";
import { pgCall } from "../pg-error-map.js";

/**
 * Runs `fn` in one transaction that enters the pipeline exactly as a pipeline transaction does
 * (`pg-pipeline-store.ts`): `pg_advisory_xact_lock` on the pipeline key, then the leadership epoch
 * under it; a stale `fence` is refused before anything is written. So a maintenance write never
 * interleaves with a run, and a deposed leader's jobs write nothing. CONFLICT is retried whole.
 * `fn` maps its own driver errors (its statements go through `pgCall`); anything else it throws
 * passes through unchanged.
 */
export async function pipelineLocked<T>(
  db: Db,
  keys: LockKeys,
  what: string,
  fence: number | undefined,
  fn: (trx: Db) => Promise<T>,
  conflictAttempts: number,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(db, keys, what, fence, fn);
    } catch (e) {
      if (isMsgxError(e) && e.kind === "CONFLICT" && attempt < conflictAttempts) continue;
      throw e;
    }
  }
}

async function once<T>(db: Db, keys: LockKeys, what: string, fence: number | undefined, fn: (trx: Db) => Promise<T>): Promise<T> {
  return pgTransaction(db, what, async (trx) => {
    const epoch = await pgCall(`${what}: pipeline lock`, () => pipelineEpoch(trx, keys));
    if (fence !== undefined && fence !== epoch) throw new MsgxError("FENCED", `fence ${fence} is stale (epoch ${epoch})`);
    return await fn(trx);
  });
}

