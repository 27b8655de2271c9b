import type { FlightState } from "@msgx/core";
import { sql } from "kysely";
import { COLLECTION_ENTRIES } from "../rows/collection-tables.js";
import { aggregateColumn, flightFromRow, type FlightRow } from "../rows/flight-row.js";
import type { Db } from "./db.js";

/**
 * The stored flights among `flids` with all their collection rows, in one round trip: each
 * collection is aggregated in stored order by a correlated subquery. The flight rows are locked.
 */
export async function loadFlights(db: Db, flids: readonly string[]): Promise<Map<string, FlightState>> {
  if (flids.length === 0) return new Map();
  const aggregates = COLLECTION_ENTRIES.map(
    ([name, table]) =>
      sql`(SELECT jsonb_agg(jsonb_build_array(c.seq_key, c.row_values) ORDER BY c.ord)
           FROM ${sql.table(table)} c WHERE c.flid = f.flid) AS ${sql.ref(aggregateColumn(name))}`,
  );
  const { rows } = await sql<FlightRow>`
    SELECT f.flid, f.ffid, f.operation_day, f.state_version, f.last_msg_id, f.last_src_dttm, f.deleted,
           f.scalars, f.collections_known, ${sql.join(aggregates)}
    FROM flight_schd f
    WHERE f.flid = ANY(${[...flids]}::text[])
    FOR UPDATE OF f`.execute(db);
  return new Map(rows.map((r) => [r.flid, flightFromRow(r)]));
}
