import type { ArchivedRecord, ArchiveQuery, ErrorClass, RecordGroup, InboxEntry, IntakeState, ProcRecord, ProcStatus, ReconcileEntry, RecordFilter } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { PROC_COLUMNS, procFromRow, procToJson, type ProcStateRow } from "../rows/proc-row.js";
import { jsonParam, toMs, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import type { WritePart } from "./write-part.js";

/**
 * Inserts PENDING records for the entries that have none (live or archived in `proc_state_hst`)
 * and raises the intake horizon, in one statement (so atomically, without a transaction). Returns
 * the ids really inserted, in input order.
 */
export async function enqueue(db: Db, entries: readonly InboxEntry[], intake: IntakeState, now: number): Promise<number[]> {
  const rows = entries.map((e) => ({ msg_id: e.msgId, received_at: e.receivedAt, traceparent: e.traceparent ?? null }));
  const { rows: inserted } = await sql<{ msg_id: unknown }>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(msg_id bigint, received_at bigint, traceparent text)
    ), ins AS (
      INSERT INTO proc_state (msg_id, status, attempts, history, received_at, updated_at, traceparent)
      SELECT msg_id, 'PENDING', 0, '[]'::jsonb, to_timestamp(received_at / 1000.0), to_timestamp(${now}::bigint / 1000.0), traceparent
      FROM input
      -- An archived id is done for good: never enqueued again (see archiveTerminal below).
      WHERE NOT EXISTS (SELECT 1 FROM proc_state_hst h WHERE h.msg_id = input.msg_id)
      ON CONFLICT (msg_id) DO NOTHING
      RETURNING msg_id
    ), horizon AS (
      INSERT INTO intake_state (id, horizon, updated_at)
      VALUES (1, ${intake.horizon}::bigint, to_timestamp(${now}::bigint / 1000.0))
      ON CONFLICT (id) DO UPDATE
        SET horizon = GREATEST(intake_state.horizon, EXCLUDED.horizon), updated_at = EXCLUDED.updated_at
    )
    SELECT msg_id FROM ins`.execute(db);
  const fresh = new Set(inserted.map((r) => toNumber(r.msg_id)));
  const result: number[] = [];
  for (const e of entries) {
    if (fresh.delete(e.msgId)) result.push(e.msgId);
  }
  return result;
}

/** One record by id. */
export async function getRecord(db: Db, msgId: number): Promise<ProcRecord | undefined> {
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state WHERE msg_id = ${msgId}::bigint`.execute(db);
  return rows[0] === undefined ? undefined : procFromRow(rows[0]);
}

/**
 * The smallest unfinished record. The predicate is written as literals, exactly as in the partial
 * index `proc_state_unfinished_idx`, so the planner proves the index applies: one probe.
 */
export async function head(db: Db): Promise<ProcRecord | undefined> {
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE status IN ('PENDING','FAILED')
    ORDER BY msg_id LIMIT 1`.execute(db);
  return rows[0] === undefined ? undefined : procFromRow(rows[0]);
}

/** Unfinished records from `fromMsgId` on, ascending: a range scan of the partial index. */
export async function unfinished(db: Db, fromMsgId: number, limit: number): Promise<ProcRecord[]> {
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE status IN ('PENDING','FAILED') AND msg_id >= ${fromMsgId}::bigint
    ORDER BY msg_id LIMIT ${Math.max(0, limit)}::bigint`.execute(db);
  return rows.map(procFromRow);
}

/**
 * Records matching every given field of the filter, ascending by id. Id lists go as one array
 * parameter (`= ANY`), so a long list never meets the bind-parameter limit.
 */
export async function listRecords(db: Db, filter: RecordFilter): Promise<ProcRecord[]> {
  const where: RawBuilder<unknown>[] = [sql`TRUE`];
  if (filter.statuses !== undefined) where.push(sql`status = ANY(${[...filter.statuses]}::text[])`);
  if (filter.errorClasses !== undefined) where.push(sql`error_class = ANY(${[...filter.errorClasses]}::text[])`);
  if (filter.msgIds !== undefined) where.push(sql`msg_id = ANY(${[...filter.msgIds]}::bigint[])`);
  if (filter.afterMsgId !== undefined) where.push(sql`msg_id > ${filter.afterMsgId}::bigint`);
  const limit = filter.limit === undefined ? sql`` : sql`LIMIT ${Math.max(0, filter.limit)}::bigint`;
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE ${sql.join(where, sql` AND `)}
    ORDER BY msg_id ${limit}`.execute(db);
  return rows.map(procFromRow);
}

/**
 * `PipelineStore.groups`: one row per (class, reason) of the given statuses, text compared in the
 * C collation (code-point order, as the in-memory store) so every store orders groups alike.
 */
export async function groupRecords(db: Db, statuses: readonly ProcStatus[], idsPerGroup: number): Promise<RecordGroup[]> {
  const { rows } = await sql<{ error_class: string | null; reason: string | null; count: unknown; msg_ids: unknown[] }>`
    SELECT error_class, reason, count(*) AS count,
           (array_agg(msg_id ORDER BY msg_id))[1:${Math.max(0, idsPerGroup)}::int] AS msg_ids
    FROM proc_state
    WHERE status = ANY(${[...statuses]}::text[])
    GROUP BY error_class, reason
    ORDER BY error_class COLLATE "C" NULLS LAST, count(*) DESC, reason COLLATE "C" NULLS LAST`.execute(db);
  return rows.map((r) => ({ errorClass: r.error_class as ErrorClass | null, reason: r.reason, count: toNumber(r.count), msgIds: (r.msg_ids ?? []).map(toNumber) }));
}

/** The records among `msgIds`, locked for the transaction, in the order asked. */
export async function loadRecords(db: Db, msgIds: readonly number[]): Promise<ProcRecord[]> {
  if (msgIds.length === 0) return [];
  const { rows } = await sql<ProcStateRow>`
    SELECT ${sql.raw(PROC_COLUMNS)} FROM proc_state
    WHERE msg_id = ANY(${[...msgIds]}::bigint[])
    ORDER BY msg_id FOR UPDATE`.execute(db);
  const byId = new Map(rows.map(procFromRow).map((r) => [r.msgId, r]));
  return msgIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/**
 * Writes the new state of existing records in one multi-row UPDATE. A record with no row is an
 * error (the pipeline only decides enqueued messages), as in the in-memory store. A part of a
 * combined write (`executeParts`); none for no records.
 */
export function updateRecordsParts(records: readonly ProcRecord[]): WritePart[] {
  if (records.length === 0) return [];
  // One entry per id, the last one winning, as a map write would.
  const byId = new Map(records.map((r) => [r.msgId, r]));
  return [
    {
      name: "upd_proc_state",
      body: sql`
        UPDATE proc_state p SET
          status = x.status,
          attempts = x.attempts,
          next_attempt_at = to_timestamp(x.next_attempt_at / 1000.0),
          head_since = to_timestamp(x.head_since / 1000.0),
          identity_key = x.identity_key,
          meta = x.meta,
          error_class = x.error_class,
          reason = x.reason,
          history = x.history,
          received_at = to_timestamp(x.received_at / 1000.0),
          updated_at = to_timestamp(x.updated_at / 1000.0)
        FROM jsonb_to_recordset(${jsonParam([...byId.values()].map(procToJson))}::jsonb) AS x(
          msg_id bigint, status text, attempts integer, next_attempt_at bigint, head_since bigint,
          identity_key text, meta jsonb, error_class text, reason text, history jsonb,
          received_at bigint, updated_at bigint)
        WHERE p.msg_id = x.msg_id
        RETURNING 1`,
      expectRows: { count: byId.size, shortfall: (updated) => `no PROC_STATE row for ${byId.size - updated} of ${byId.size} records` },
    },
  ];
}

const COLUMNS = "msg_id, status, attempts, next_attempt_at, head_since, identity_key, meta, error_class, reason, history, received_at, updated_at, traceparent";

/**
 * Moves old terminal records without a backfill todo from `proc_state` to `proc_state_hst`,
 * unchanged, in one statement: oldest `updated_at` first through `proc_state_terminal_age_idx`
 * (the predicate repeats the index's literally). Runs under the pipeline lock, so no run or replay
 * changes a picked record meanwhile. Returns the ids, ascending.
 */
export async function archiveTerminal(db: Db, q: ArchiveQuery): Promise<number[]> {
  const { rows } = await sql<{ msg_id: unknown }>`
    WITH picked AS (
      SELECT p.msg_id FROM proc_state p
      WHERE p.status IN ('SUCCEEDED','SKIPPED','DEAD')
        AND p.updated_at < to_timestamp(${q.updatedBefore}::bigint / 1000.0)
        AND p.msg_id <= ${q.throughMsgId}::bigint
        AND NOT EXISTS (SELECT 1 FROM backfill_todo b WHERE b.msg_id = p.msg_id)
      ORDER BY p.updated_at, p.msg_id
      LIMIT ${q.limit}::integer
    ), moved AS (
      DELETE FROM proc_state p USING picked WHERE p.msg_id = picked.msg_id
      RETURNING ${sql.raw(COLUMNS.split(", ").map((c) => `p.${c}`).join(", "))}
    )
    INSERT INTO proc_state_hst (${sql.raw(COLUMNS)}, archived_at)
    SELECT ${sql.raw(COLUMNS)}, to_timestamp(${q.now}::bigint / 1000.0) FROM moved
    RETURNING msg_id`.execute(db);
  return rows.map((r) => toNumber(r.msg_id)).sort((a, b) => a - b);
}

/** The archived records among `msgIds`, ascending. */
export async function archivedRecords(db: Db, msgIds: readonly number[]): Promise<ArchivedRecord[]> {
  if (msgIds.length === 0) return [];
  const { rows } = await sql<ProcStateRow & { archived_at: unknown }>`
    SELECT ${sql.raw(PROC_COLUMNS)}, archived_at FROM proc_state_hst
    WHERE msg_id = ANY(${[...new Set(msgIds)]}::bigint[]) ORDER BY msg_id`.execute(db);
  return rows.map((r) => ({ record: procFromRow(r), archivedAt: toMs(r.archived_at) }));
}

/** Every live and archived record in `(afterMsgId, throughMsgId]` with its todo, in one statement (one snapshot). */
export async function reconcileRange(db: Db, afterMsgId: number, throughMsgId: number): Promise<ReconcileEntry[]> {
  if (throughMsgId <= afterMsgId) return [];
  const { rows } = await sql<{ msg_id: unknown; status: string; archived: boolean; backfill_pending: boolean }>`
    SELECT u.msg_id, u.status, u.archived, EXISTS (SELECT 1 FROM backfill_todo b WHERE b.msg_id = u.msg_id) AS backfill_pending
    FROM (
      SELECT msg_id, status, false AS archived FROM proc_state
      WHERE msg_id > ${afterMsgId}::bigint AND msg_id <= ${throughMsgId}::bigint
      UNION ALL
      SELECT msg_id, status, true AS archived FROM proc_state_hst
      WHERE msg_id > ${afterMsgId}::bigint AND msg_id <= ${throughMsgId}::bigint
    ) u
    ORDER BY u.msg_id`.execute(db);
  return rows.map((r) => ({ msgId: toNumber(r.msg_id), status: r.status as ProcStatus, archived: r.archived, backfillPending: r.backfill_pending }));
}
