import type { FlightState } from "@msgx/core";
import { sql } from "kysely";
import { flightFromRow } from "../rows/flight-row.js";
import { selectFlights } from "../rows/flight-select.js";
import type { Db } from "./db.js";

/** The stored flights among `flids` with all their collections, in one round trip; flight rows locked. */
export async function loadFlights(db: Db, flids: readonly string[]): Promise<Map<string, FlightState>> {
  if (flids.length === 0) return new Map();
  const { rows } = await selectFlights(sql`f.flid = ANY(${[...flids]}::text[])`, sql`FOR UPDATE OF f`).execute(db);
  return new Map(rows.map((r) => [r.flid, flightFromRow(r)]));
}
