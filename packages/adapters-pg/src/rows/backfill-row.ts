import type { BackfillTodo, Meta } from "@msgx/core";
import { fromJson, toMs, toNumber } from "./values.js";

export interface BackfillRow {
  readonly msg_id: unknown;
  readonly processed_at: unknown;
  readonly meta: unknown;
  readonly attempts: unknown;
  readonly next_attempt_at: unknown;
  readonly last_error: string | null;
}

export const backfillFromRow = (r: BackfillRow): BackfillTodo => ({
  msgId: toNumber(r.msg_id),
  processedAt: toMs(r.processed_at),
  meta: r.meta === null || r.meta === undefined ? null : fromJson<Meta>(r.meta),
  attempts: toNumber(r.attempts),
  nextAttemptAt: toMs(r.next_attempt_at),
  lastError: r.last_error,
});
