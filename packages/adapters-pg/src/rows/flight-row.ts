import type { CollectionName, CollectionRow, FlightState, WireValue } from "@msgx/core";
import { COLLECTION_ENTRIES } from "./collection-tables.js";
import { fromJson, toNumber } from "./values.js";

/** A `flight_schd` row with its collections aggregated per table (see `load-flights.ts`). */
export interface FlightRow {
  readonly flid: string;
  readonly ffid: string | null;
  readonly operation_day: string | null;
  readonly state_version: unknown;
  readonly last_msg_id: unknown;
  readonly last_src_dttm: string;
  readonly deleted: boolean;
  readonly scalars: unknown;
  readonly collections_known: readonly string[] | string;
  /** `[[seq_key, row_values], …]` in stored order, or null, per collection (`c_rout`, …). */
  readonly [aggregate: `c_${string}`]: unknown;
}

/** The aggregate column of a collection in the load query. */
export const aggregateColumn = (name: CollectionName): `c_${string}` => `c_${name.toLowerCase()}`;

export function flightFromRow(r: FlightRow): FlightState {
  const known = new Set(parseTextArray(r.collections_known));
  const collections: Partial<Record<CollectionName, readonly CollectionRow[]>> = {};
  for (const [name] of COLLECTION_ENTRIES) {
    if (!known.has(name)) continue;
    const rows = fromJson<[string, Record<string, WireValue>][] | null>(r[aggregateColumn(name)]) ?? [];
    collections[name] = rows.map(([key, values]) => ({ key, values }));
  }
  return {
    flid: r.flid,
    ffid: r.ffid,
    operationDay: r.operation_day,
    stateVersion: toNumber(r.state_version),
    lastMsgId: toNumber(r.last_msg_id),
    lastSrcDttm: r.last_src_dttm,
    deleted: r.deleted,
    scalars: fromJson<FlightState["scalars"]>(r.scalars),
    collections,
  };
}

/** node-postgres parses `text[]`; a driver that does not gives `{A,B}`. Collection names need no quoting. */
function parseTextArray(v: readonly string[] | string): readonly string[] {
  if (typeof v !== "string") return v;
  const inner = v.replace(/^\{|\}$/g, "");
  return inner === "" ? [] : inner.split(",");
}

/** The `flight_schd` part of a flight, as one element of a set-based write. */
export const flightToJson = (f: FlightState) => ({
  flid: f.flid,
  ffid: f.ffid,
  operation_day: f.operationDay,
  state_version: f.stateVersion,
  last_msg_id: f.lastMsgId,
  last_src_dttm: f.lastSrcDttm,
  deleted: f.deleted,
  scalars: f.scalars,
  collections_known: Object.keys(f.collections).filter((k) => f.collections[k as CollectionName] !== undefined),
});

/** Every collection row of the flights, tagged with its collection and stored order. */
export const collectionRowsToJson = (flights: readonly FlightState[]) =>
  flights.flatMap((f) =>
    COLLECTION_ENTRIES.flatMap(([name]) =>
      (f.collections[name] ?? []).map((row, ord) => ({ flid: f.flid, coll: name, seq_key: row.key, ord, row_values: row.values })),
    ),
  );
