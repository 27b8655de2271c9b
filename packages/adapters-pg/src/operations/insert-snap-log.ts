import type { SnapshotLogEntry } from "@msgx/core";
import { sql } from "kysely";
import { jsonParam } from "../rows/values.js";
import type { Db } from "./db.js";

/** Appends the run's `SCHD_SNAP_LOG` rows in one statement, in the given order, logged at `now`. */
export async function insertSnapLog(db: Db, entries: readonly SnapshotLogEntry[], now: number): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((e, ord) => ({
    ord,
    msg_id: e.msgId,
    styp: e.styp,
    operation_day: e.operationDay,
    declared_recs: e.declaredRecs,
    flights: e.flights,
    outcome: e.outcome,
    reason: e.reason,
  }));
  await sql`
    INSERT INTO schd_snap_log (msg_id, styp, operation_day, declared_recs, flights, outcome, reason, logged_at)
    SELECT x.msg_id, x.styp, x.operation_day, x.declared_recs, x.flights, x.outcome, x.reason, to_timestamp(${now}::bigint / 1000.0)
    FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(
      ord integer, msg_id bigint, styp text, operation_day text, declared_recs integer, flights integer, outcome text, reason text)
    ORDER BY x.ord`.execute(db);
}
