import { sql } from "kysely";
import type { LockKeys } from "../lock-keys.js";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import { pipelineEpoch } from "./pipeline-epoch.js";

/**
 * Moves the leadership epoch on, inside an open transaction, under the pipeline lock: a pipeline
 * transaction of the old leader either committed before (and the new leader reads its effects)
 * or sees the new epoch and is fenced. Never both.
 */
export async function bumpEpoch(db: Db, keys: LockKeys, holder: string, now: number): Promise<number> {
  await pipelineEpoch(db, keys);
  const { rows } = await sql<{ epoch: unknown }>`
    INSERT INTO leadership (name, epoch, holder, acquired_at)
    VALUES ('pipeline', 1, ${holder}, to_timestamp(${now}::bigint / 1000.0))
    ON CONFLICT (name) DO UPDATE
      SET epoch = leadership.epoch + 1, holder = EXCLUDED.holder, acquired_at = EXCLUDED.acquired_at
    RETURNING epoch`.execute(db);
  return toNumber(rows[0]?.epoch);
}
