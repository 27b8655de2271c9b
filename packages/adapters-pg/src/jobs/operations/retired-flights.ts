import type { FlightPayload } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { fromJson, toMs, toNumber } from "../../rows/values.js";
import type { RetiredFlight } from "@msgx/core";

/** The history rows of a FLID, oldest retirement first. */
export async function retiredFlights(db: Db, flid: string): Promise<RetiredFlight[]> {
  const { rows } = await sql<{ flid: string; operation_day: string; tombstone_version: unknown; final_state: unknown; retired_at: unknown }>`
    SELECT flid, operation_day, tombstone_version, final_state, retired_at
    FROM flight_schd_hst WHERE flid = ${flid} ORDER BY hst_id`.execute(db);
  return rows.map((r) => ({
    flid: r.flid,
    operationDay: r.operation_day,
    finalState: fromJson<FlightPayload>(r.final_state),
    tombstoneVersion: r.tombstone_version === null || r.tombstone_version === undefined ? null : toNumber(r.tombstone_version),
    retiredAt: toMs(r.retired_at),
  }));
}
