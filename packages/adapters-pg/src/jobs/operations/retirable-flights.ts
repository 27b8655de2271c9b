import type { FlightState } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { flightFromRow } from "../../rows/flight-row.js";
import { selectFlights } from "../../rows/flight-select.js";

/**
 * Up to `limit` flights whose operation day is before `cutoffDay`, whole, oldest day first then
 * FLID as a number (the order of `flight_schd_day_flid_idx`), locked for the transaction.
 */
export async function retirableFlights(db: Db, cutoffDay: string, limit: number): Promise<FlightState[]> {
  const { rows } = await selectFlights(
    sql`f.operation_day < ${cutoffDay}`,
    sql`ORDER BY f.operation_day, (f.flid::bigint), f.flid LIMIT ${limit}::integer FOR UPDATE OF f`,
  ).execute(db);
  return rows.map(flightFromRow);
}
