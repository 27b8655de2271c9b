import { sql } from "kysely";
import type { LockKeys } from "../lock-keys.js";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/**
 * Enters the pipeline inside an open transaction: takes the transaction-scoped advisory lock that
 * makes pipeline transactions one writer at a time, then reads the leadership epoch (one round
 * trip, see `msgx_pipeline_epoch`). The lock is released by COMMIT or ROLLBACK.
 */
export async function pipelineEpoch(db: Db, keys: LockKeys): Promise<number> {
  const [cls, obj] = keys.pipeline;
  const { rows } = await sql<{ epoch: unknown }>`SELECT msgx_pipeline_epoch(${cls}::integer, ${obj}::integer) AS epoch`.execute(db);
  return toNumber(rows[0]?.epoch ?? 0);
}
