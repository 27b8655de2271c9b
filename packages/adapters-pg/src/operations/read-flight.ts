import type { FlightState } from "@msgx/core";
import { sql } from "kysely";
import { flightFromRow } from "../rows/flight-row.js";
import { selectFlights } from "../rows/flight-select.js";
import type { Db } from "./db.js";

/** One flight, whole, without locking (a reader never holds up the pump). */
export async function readFlight(db: Db, flid: string): Promise<FlightState | undefined> {
  const { rows } = await selectFlights(sql`f.flid = ${flid}`).execute(db);
  return rows[0] === undefined ? undefined : flightFromRow(rows[0]);
}
