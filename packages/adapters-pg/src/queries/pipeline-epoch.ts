import { MsgxError, type IntakeState } from "@msgx/core";
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

/** The persisted intake state, or undefined before the first enqueue. */
export async function intakeState(db: Db): Promise<IntakeState | undefined> {
  const row = await db.selectFrom("intake_state").select("horizon").where("id", "=", 1).executeTakeFirst();
  return row === undefined ? undefined : { horizon: toNumber(row.horizon) };
}

/**
 * The statement that enters the pipeline inside a transaction, for `pgTransaction`'s `withBegin`
 * (the simple protocol: the integers are inlined). `msgx_pipeline_enter` takes the pipeline lock,
 * reads the epoch under it and raises `STALE_FENCE_SQLSTATE` (FENCED) when `fence` is given and
 * is not the epoch, before the transaction writes anything; with `bumpGeneration` it then moves
 * the state generation on (0032), in the same transaction.
 */
export function pipelineEnter(keys: LockKeys, fence: number | undefined, bumpGeneration = false): string {
  const [cls, obj] = keys.pipeline;
  for (const n of [cls, obj, fence ?? 0]) if (!Number.isSafeInteger(n)) throw new MsgxError("INFRA", `pipeline lock: ${n} is not an integer`);
  return `SELECT msgx_pipeline_enter(${cls}, ${obj}, ${fence === undefined ? "NULL" : fence}${bumpGeneration ? ", TRUE" : ""})`;
}

/**
 * The fence of a transaction that does not enter the pipeline (the task service's), checked last
 * before its COMMIT: reads the leadership epoch `FOR SHARE`, holding the row until COMMIT. An epoch
 * bump updates that row, so it either waits for this commit (the new leader then reads its writes)
 * or, made first, is what this read sees (READ COMMITTED reads the newest version of a row it
 * waited for): a stale `fence` throws FENCED and the caller rolls back.
 */
export async function holdFence(db: Db, fence: number): Promise<void> {
  const { rows } = await sql<{ epoch: unknown }>`SELECT epoch FROM leadership WHERE name = 'pipeline' FOR SHARE`.execute(db);
  const epoch = toNumber(rows[0]?.epoch ?? 0);
  if (epoch !== fence) throw new MsgxError("FENCED", `fence ${fence} is stale (epoch ${epoch})`);
}
