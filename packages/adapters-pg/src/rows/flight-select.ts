import { sql, type RawBuilder } from "kysely";
import { COLLECTION_ENTRIES } from "./collection-tables.js";
import { aggregateColumn, type FlightRow } from "./flight-row.js";

/**
 * Flights with all their collection rows in one statement (so one snapshot: each flight whole):
 * each collection is aggregated in stored order by a correlated subquery on its primary key.
 * `where` filters `flight_schd f`; `tail` adds ORDER BY / LIMIT / FOR UPDATE.
 */
export function selectFlights(where: RawBuilder<unknown>, tail: RawBuilder<unknown> = sql``): RawBuilder<FlightRow> {
  const aggregates = COLLECTION_ENTRIES.map(
    ([name, table]) =>
      sql`(SELECT jsonb_agg(jsonb_build_array(c.seq_key, c.row_values) ORDER BY c.ord)
           FROM ${sql.table(table)} c WHERE c.flid = f.flid) AS ${sql.ref(aggregateColumn(name))}`,
  );
  return sql<FlightRow>`
    SELECT f.flid, f.ffid, f.operation_day, f.state_version, f.last_msg_id, f.last_src_dttm, f.deleted,
           f.scalars, f.collections_known, ${sql.join(aggregates)}
    FROM flight_schd f
    WHERE ${where}
    ${tail}`;
}
