import type { ProcStatus, SnapshotLogEntry, SnapshotLogRow } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { jsonParam, toMs, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** Appends the run's `SCHD_SNAP_LOG` rows in one statement, in the given order, logged at `now`. */
export async function insertSnapLog(db: Db, entries: readonly SnapshotLogEntry[], now: number): Promise<void> {
  await insertSnapLogStatement(entries, now)?.execute(db);
}

/** The rows `insertSnapLog` reads from its one JSON parameter, `ord` giving their order. */
export const snapLogRowsJson = (entries: readonly SnapshotLogEntry[]) =>
  entries.map((e, ord) => ({
    ord,
    msg_id: e.msgId,
    styp: e.styp,
    operation_day: e.operationDay,
    declared_recs: e.declaredRecs,
    flights: e.flights,
    outcome: e.outcome,
    reason: e.reason,
  }));

/** `insertSnapLog`'s statement, to ride in another round trip; undefined for no entries. */
export function insertSnapLogStatement(entries: readonly SnapshotLogEntry[], now: number): RawBuilder<unknown> | undefined {
  if (entries.length === 0) return undefined;
  const rows = snapLogRowsJson(entries);
  return sql`
    INSERT INTO schd_snap_log (msg_id, styp, operation_day, declared_recs, flights, outcome, reason, logged_at)
    SELECT x.msg_id, x.styp, x.operation_day, x.declared_recs, x.flights, x.outcome, x.reason, to_timestamp(${now}::bigint / 1000.0)
    FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(
      ord integer, msg_id bigint, styp text, operation_day text, declared_recs integer, flights integer, outcome text, reason text)
    ORDER BY x.ord`;
}

/** The newest `limit` snapshot-log rows, newest first (by the primary key). */
export async function snapshotLog(db: Db, limit: number): Promise<SnapshotLogRow[]> {
  const { rows } = await sql<{
    snap_id: unknown;
    msg_id: unknown;
    styp: "DNLD" | "RESP";
    operation_day: string | null;
    declared_recs: number | null;
    flights: number;
    outcome: ProcStatus;
    reason: string | null;
    logged_at: unknown;
  }>`
    SELECT snap_id, msg_id, styp, operation_day, declared_recs, flights, outcome, reason, logged_at
    FROM schd_snap_log ORDER BY snap_id DESC LIMIT ${limit}::integer`.execute(db);
  return rows.map((r) => ({
    snapId: toNumber(r.snap_id),
    msgId: toNumber(r.msg_id),
    styp: r.styp,
    operationDay: r.operation_day,
    declaredRecs: r.declared_recs,
    flights: r.flights,
    outcome: r.outcome,
    reason: r.reason,
    loggedAt: toMs(r.logged_at),
  }));
}

/** Deletes up to `limit` snapshot-log rows logged before `before`, oldest first (by `schd_snap_log_logged_at_idx`). */
export async function purgeSnapLog(db: Db, before: number, limit: number): Promise<number> {
  const { rows } = await sql<{ snap_id: unknown }>`
    WITH doomed AS (
      SELECT snap_id FROM schd_snap_log
      WHERE logged_at < to_timestamp(${before}::bigint / 1000.0)
      ORDER BY logged_at, snap_id
      LIMIT ${limit}::integer
    )
    DELETE FROM schd_snap_log s USING doomed d WHERE s.snap_id = d.snap_id
    RETURNING s.snap_id`.execute(db);
  return rows.length;
}
