import { retiredFlightState, type FlightState } from "@msgx/core";
import { sql } from "kysely";
import { flightFromRow } from "../rows/flight-row.js";
import { selectFlights } from "../rows/flight-select.js";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** What `loadFlights` read: the stored flights (locked), and retired FLIDs not stored again. */
export interface LoadedFlights {
  readonly stored: ReadonlyMap<string, FlightState>;
  readonly retired: ReadonlyMap<string, FlightState>;
}

/**
 * The stored flights among `flids` with all their collections, in one round trip; flight rows
 * locked. FLIDs not stored are looked up in `flight_schd_hst` (a second round trip, only then):
 * a retired one is given at the highest version any of its lives reached, so a new life counts
 * on above its tombstone. History rows are never updated, so they need no lock.
 */
export async function loadFlights(db: Db, flids: readonly string[]): Promise<LoadedFlights> {
  if (flids.length === 0) return { stored: new Map(), retired: new Map() };
  const { rows } = await selectFlights(sql`f.flid = ANY(${[...flids]}::text[])`, sql`FOR UPDATE OF f`).execute(db);
  const stored = new Map(rows.map((r) => [r.flid, flightFromRow(r)]));
  const missing = flids.filter((f) => !stored.has(f));
  const retired = new Map<string, FlightState>();
  if (missing.length === 0) return { stored, retired };
  const history = await sql<{ flid: string; version: unknown; last_msg_id: unknown }>`
    SELECT DISTINCT ON (flid) flid, GREATEST(state_version, COALESCE(tombstone_version, 0)) AS version, last_msg_id
    FROM flight_schd_hst WHERE flid = ANY(${missing}::text[])
    ORDER BY flid, GREATEST(state_version, COALESCE(tombstone_version, 0)) DESC, hst_id DESC`.execute(db);
  for (const r of history.rows) retired.set(r.flid, retiredFlightState(r.flid, toNumber(r.version), toNumber(r.last_msg_id)));
  return { stored, retired };
}
