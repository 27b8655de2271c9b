import { MsgxError, type IdentityOwner } from "@msgx/core";
import { sql } from "kysely";
import type { FlightRow } from "../rows/flight-row.js";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import { lockedFlights, withRetired, type LoadedFlights } from "./flights.js";
import { identityOwnersJson, ownersFromJson } from "./identities.js";

/** What a run reads before it decides: the owners of its identity keys and its flights. */
export interface RunState {
  readonly owners: ReadonlyMap<string, IdentityOwner>;
  readonly flights: LoadedFlights;
}

/**
 * `identityOwners` and `loadFlights` in one statement (one round trip; the history lookup of
 * `loadFlights` adds its second only when a FLID is not stored): the locked flights, each row
 * beside the owners, which only the first row carries (one jsonb value, not one per flight). A
 * run with no flight still gets one row, for the owners. Both keys and flids are non-empty.
 */
export async function loadRunState(db: Db, keys: readonly string[], flids: readonly string[]): Promise<RunState> {
  const { owners, flights } = await runStateWith(db, keys, flids, true);
  return { owners, flights };
}

/**
 * `PipelineStore.loadRunState`: the state generation, the owners and the flights in one
 * statement, so one snapshot (no lock, no transaction). Only a FLID not stored costs the history
 * lookup's second statement; a retirement committed between the two moved the generation on, so
 * the commit of a run decided from this read is refused.
 */
export async function readRunState(db: Db, keys: readonly string[], flids: readonly string[]): Promise<RunState & { readonly generation: number }> {
  return runStateWith(db, keys, flids, false);
}

async function runStateWith(db: Db, keys: readonly string[], flids: readonly string[], lock: boolean): Promise<RunState & { readonly generation: number }> {
  const generation = lock ? sql`NULL::bigint` : sql`(SELECT generation FROM pipeline_generation WHERE id = 1)`;
  const { rows } = await sql<FlightRow & { owners: unknown; generation: unknown }>`
    WITH fl AS (${lockedFlights(flids, lock)})
    SELECT CASE WHEN row_number() OVER () = 1 THEN o.owners END AS owners, o.generation, fl.*
    FROM (SELECT ${identityOwnersJson(keys)} AS owners, ${generation} AS generation) o LEFT JOIN fl ON TRUE`.execute(db);
  const owners = ownersFromJson(rows[0]?.owners ?? null);
  const flights = await withRetired(db, flids, rows.filter((r) => r.flid !== null));
  if (!lock && (rows[0]?.generation ?? null) === null) throw new MsgxError("INFRA", "pipeline_generation has lost its row: restore it (id 1) before the pipeline writes again");
  return { generation: lock ? 0 : toNumber(rows[0]!.generation), owners, flights };
}
