import type { ProcStatus } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toMs, toNumber } from "../../rows/values.js";
import type { SnapshotLogRow } from "@msgx/core";

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
