import type { FlightListQuery, FlightState } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { flightFromRow } from "../rows/flight-row.js";
import { selectFlights } from "../rows/flight-select.js";
import type { Db } from "./db.js";

/**
 * A page of flights in numeric FLID order (ties by text), keyset-paged on `(flid::bigint, flid)`:
 * an index range scan of `flight_schd_flid_order_idx`, or of `flight_schd_day_flid_idx` with a day.
 * The query must have been checked (`assertListQuery`).
 */
export async function listFlights(db: Db, query: FlightListQuery): Promise<FlightState[]> {
  const where: RawBuilder<unknown>[] = [sql`TRUE`];
  if (query.operationDay !== undefined) where.push(sql`f.operation_day = ${query.operationDay}`);
  if (query.afterFlid !== undefined) where.push(sql`(f.flid::bigint, f.flid) > (${query.afterFlid}::bigint, ${query.afterFlid}::text)`);
  if (query.includeDeleted === false) where.push(sql`NOT f.deleted`);
  const { rows } = await selectFlights(sql.join(where, sql` AND `), sql`ORDER BY f.flid::bigint, f.flid LIMIT ${query.limit}::bigint`).execute(db);
  return rows.map(flightFromRow);
}
