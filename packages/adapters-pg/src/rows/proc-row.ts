import type { ErrorClass, ErrorEntry, Meta, ProcRecord, ProcStatus } from "@msgx/core";
import { fromJson, toMs, toMsOrNull, toNumber } from "./values.js";

/** A `proc_state` row as the drivers return it. */
export interface ProcStateRow {
  readonly msg_id: unknown;
  readonly status: string;
  readonly attempts: unknown;
  readonly next_attempt_at: unknown;
  readonly head_since: unknown;
  readonly identity_key: string | null;
  readonly meta: unknown;
  readonly error_class: string | null;
  readonly reason: string | null;
  readonly history: unknown;
  readonly received_at: unknown;
  readonly updated_at: unknown;
  readonly traceparent?: string | null;
}

/** The columns of a record, in the order `PROC_COLUMNS` lists them. */
export const PROC_COLUMNS =
  "msg_id, status, attempts, next_attempt_at, head_since, identity_key, meta, error_class, reason, history, received_at, updated_at, traceparent";

export const procFromRow = (r: ProcStateRow): ProcRecord => ({
  msgId: toNumber(r.msg_id),
  status: r.status as ProcStatus,
  attempts: toNumber(r.attempts),
  nextAttemptAt: toMsOrNull(r.next_attempt_at),
  headSince: toMsOrNull(r.head_since),
  identityKey: r.identity_key,
  meta: r.meta === null || r.meta === undefined ? null : fromJson<Meta>(r.meta),
  errorClass: r.error_class as ErrorClass | null,
  reason: r.reason,
  history: fromJson<ErrorEntry[]>(r.history),
  receivedAt: toMs(r.received_at),
  updatedAt: toMs(r.updated_at),
  ...(r.traceparent ? { traceparent: r.traceparent } : {}),
});

/** A record as one element of the JSON document a set-based write reads (times in epoch ms). */
export const procToJson = (r: ProcRecord) => ({
  msg_id: r.msgId,
  status: r.status,
  attempts: r.attempts,
  next_attempt_at: r.nextAttemptAt,
  head_since: r.headSince,
  identity_key: r.identityKey,
  meta: r.meta,
  error_class: r.errorClass,
  reason: r.reason,
  history: r.history,
  received_at: r.receivedAt,
  updated_at: r.updatedAt,
});
