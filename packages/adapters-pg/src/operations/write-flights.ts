import type { CollectionName, CollectionRow, FlightState } from "@msgx/core";
import { sql } from "kysely";
import { COLLECTION_ENTRIES } from "../rows/collection-tables.js";
import { collectionRowsToJson, flightToJson } from "../rows/flight-row.js";
import { jsonParam } from "../rows/values.js";
import type { WritePart } from "./write-part.js";

/**
 * Replaces each flight (row and collections) as parts of two combined writes (`executeParts`),
 * whatever the count:
 * 1. `first`: upsert every `flight_schd` row and delete the collection rows to rewrite; it may
 *    share its statement with parts on other tables;
 * 2. `second`: insert the rewritten collection rows, each table fed from one JSON document.
 * Deleting and re-inserting in the same statement would touch the same keys twice, hence two.
 *
 * `stored` holds the flights as this transaction loaded (and locked) them: a collection whose
 * rows equal the stored ones is left as it is (an ESTT update rewrites no collection table). A
 * flight not in `stored` has every collection rewritten.
 */
export function writeFlightsParts(
  flights: readonly FlightState[],
  now: number,
  stored: ReadonlyMap<string, FlightState> = new Map(),
): { readonly first: WritePart[]; readonly second: WritePart[] } {
  if (flights.length === 0) return { first: [], second: [] };
  const byFlid = new Map(flights.map((f) => [f.flid, f]));
  // Per collection, the flights whose rows change (or whose stored rows are not known).
  const rewrite = new Map<CollectionName, Set<string>>();
  for (const f of byFlid.values()) {
    const before = stored.get(f.flid);
    for (const [name] of COLLECTION_ENTRIES) {
      if (before !== undefined && sameRows(before.collections[name], f.collections[name])) continue;
      const set = rewrite.get(name);
      if (set === undefined) rewrite.set(name, new Set([f.flid]));
      else set.add(f.flid);
    }
  }
  const upsert: WritePart = {
    name: "ups_flight_schd",
    body: sql`
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
        scalars = EXCLUDED.scalars, collections_known = EXCLUDED.collections_known, updated_at = EXCLUDED.updated_at`,
  };
  const deletes = COLLECTION_ENTRIES.filter(([name]) => rewrite.has(name)).map(
    ([name, table]): WritePart => ({
      name: `del_${name.toLowerCase()}`,
      body: sql`DELETE FROM ${sql.table(table)} WHERE flid = ANY(${[...rewrite.get(name)!]}::text[])`,
    }),
  );

  const rows = collectionRowsToJson([...byFlid.values()]).filter((r) => rewrite.get(r.coll)?.has(r.flid) === true);
  if (rows.length === 0) return { first: [upsert, ...deletes], second: [] };
  const input: WritePart = {
    name: "collection_input",
    body: sql`SELECT * FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(flid text, coll text, seq_key text, ord integer, row_values jsonb)`,
  };
  const inserts = COLLECTION_ENTRIES.filter(([name]) => rows.some((r) => r.coll === name)).map(
    ([name, table]): WritePart => ({
      name: `ins_${name.toLowerCase()}`,
      body: sql`
        INSERT INTO ${sql.table(table)} (flid, seq_key, ord, row_values)
        SELECT flid, seq_key, ord, row_values FROM collection_input WHERE coll = ${name}`,
    }),
  );
  return { first: [upsert, ...deletes], second: [input, ...inserts] };
}

/**
 * Whether two versions of a collection hold the same rows, in the same order (absent and `[]`
 * hold none). Field order inside a row does not count: jsonb gives fields back in its own order.
 */
function sameRows(a: readonly CollectionRow[] | undefined, b: readonly CollectionRow[] | undefined): boolean {
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  if (a === undefined || b === undefined || a === b) return true;
  return rowsText(a) === rowsText(b);
}

const rowsText = (rows: readonly CollectionRow[]): string =>
  JSON.stringify(rows.map((r) => [r.key, Object.entries(r.values).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))]));
