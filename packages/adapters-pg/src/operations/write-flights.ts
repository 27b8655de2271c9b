import type { FlightState } from "@msgx/core";
import { sql } from "kysely";
import { COLLECTION_ENTRIES } from "../rows/collection-tables.js";
import { collectionRowsToJson, flightToJson } from "../rows/flight-row.js";
import { jsonParam } from "../rows/values.js";
import type { Db } from "./db.js";

/**
 * Replaces each flight (row and collections) in two statements, whatever the count:
 * 1. upsert every `flight_schd` row and delete every collection row of these flights (one
 *    statement: data-modifying CTEs on different tables);
 * 2. insert every collection row, each table fed from one JSON document.
 * Deleting and re-inserting in the same statement would touch the same keys twice, hence two.
 */
export async function writeFlights(db: Db, flights: readonly FlightState[], now: number): Promise<void> {
  if (flights.length === 0) return;
  const byFlid = new Map(flights.map((f) => [f.flid, f]));
  const flids = [...byFlid.keys()];
  const deletes = COLLECTION_ENTRIES.map(
    ([name, table]) => sql`${sql.ref(`del_${name.toLowerCase()}`)} AS (DELETE FROM ${sql.table(table)} WHERE flid = ANY(${flids}::text[]))`,
  );
  await sql`
    WITH upsert AS (
      INSERT INTO flight_schd (flid, ffid, operation_day, state_version, last_msg_id, last_src_dttm, deleted,
                               scalars, collections_known, updated_at)
      SELECT x.flid, x.ffid, x.operation_day, x.state_version, x.last_msg_id, x.last_src_dttm, x.deleted,
             x.scalars, ARRAY(SELECT jsonb_array_elements_text(x.collections_known)), to_timestamp(${now}::bigint / 1000.0)
      FROM jsonb_to_recordset(${jsonParam([...byFlid.values()].map(flightToJson))}::jsonb) AS x(
        flid text, ffid text, operation_day text, state_version bigint, last_msg_id bigint, last_src_dttm text,
        deleted boolean, scalars jsonb, collections_known jsonb)
      ON CONFLICT (flid) DO UPDATE SET
        ffid = EXCLUDED.ffid, operation_day = EXCLUDED.operation_day, state_version = EXCLUDED.state_version,
        last_msg_id = EXCLUDED.last_msg_id, last_src_dttm = EXCLUDED.last_src_dttm, deleted = EXCLUDED.deleted,
        scalars = EXCLUDED.scalars, collections_known = EXCLUDED.collections_known, updated_at = EXCLUDED.updated_at
    ), ${sql.join(deletes)}
    SELECT 1`.execute(db);

  const rows = collectionRowsToJson([...byFlid.values()]);
  if (rows.length === 0) return;
  const present = COLLECTION_ENTRIES.filter(([name]) => rows.some((r) => r.coll === name));
  const inserts = present.map(
    ([name, table]) =>
      sql`${sql.ref(`ins_${name.toLowerCase()}`)} AS (
        INSERT INTO ${sql.table(table)} (flid, seq_key, ord, row_values)
        SELECT flid, seq_key, ord, row_values FROM input WHERE coll = ${name})`,
  );
  await sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb)
        AS x(flid text, coll text, seq_key text, ord integer, row_values jsonb)
    ), ${sql.join(inserts)}
    SELECT 1`.execute(db);
}
