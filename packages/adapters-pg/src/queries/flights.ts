import { FLID_PATTERN, MsgxError, retiredFlightState, type CollectionName, type CollectionRow, type FlightListQuery, type FlightPayload, type FlightSearchQuery, type FlightState, type RetiredFlight } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { COLLECTION_ENTRIES } from "../rows/collection-tables.js";
import { collectionRowsToJson, flightFromRow, flightToJson, type FlightRow } from "../rows/flight-row.js";
import { selectFlights } from "../rows/flight-select.js";
import { fromJson, jsonParam, toMs, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import type { WritePart } from "./write-part.js";

/** One flight, whole, without locking (a reader never holds up the pump). */
export async function readFlight(db: Db, flid: string): Promise<FlightState | undefined> {
  const { rows } = await selectFlights(sql`f.flid = ${flid}`).execute(db);
  return rows[0] === undefined ? undefined : flightFromRow(rows[0]);
}

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

/**
 * What `FlightReader.search` promises (the query checked by `assertSearchQuery`): the flight whose
 * FLID is the text, then flight numbers starting with it, case ignored — a range of
 * `flight_schd_flno_search_idx`, read in its order, so the LIMIT stops the scan. Two statements.
 */
export async function searchFlights(db: Db, query: FlightSearchQuery): Promise<FlightState[]> {
  const exact = FLID_PATTERN.test(query.text) ? await readFlight(db, query.text) : undefined;
  const limit = query.limit - (exact ? 1 : 0);
  if (limit === 0) return [exact!];
  // The text is letters and digits only: nothing in it is a LIKE wildcard.
  const prefix = `${query.text.toUpperCase()}%`;
  const { rows } = await selectFlights(
    sql`upper(f.flno) COLLATE "C" LIKE ${prefix} AND f.flid <> ${query.text}`,
    sql`ORDER BY upper(f.flno) COLLATE "C", f.sodt COLLATE "C", f.flid COLLATE "C" LIMIT ${limit}::integer`,
  ).execute(db);
  return [...(exact ? [exact] : []), ...rows.map(flightFromRow)];
}

/** `FlightReader.recent`: read along `flight_schd_recent_idx` (0022), so the limit ends the scan. */
export async function recentFlights(db: Db, limit: number): Promise<FlightState[]> {
  const { rows } = await selectFlights(sql`TRUE`, sql`ORDER BY f.last_msg_id DESC, f.flid COLLATE "C" LIMIT ${limit}::integer`).execute(db);
  return rows.map(flightFromRow);
}

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
  const { rows } = await lockedFlights(flids).execute(db);
  return withRetired(db, flids, rows);
}

/** The statement of `loadFlights`' first round trip: the stored flights among `flids`, locked unless `lock` is false. */
export const lockedFlights = (flids: readonly string[], lock = true): RawBuilder<FlightRow> =>
  selectFlights(sql`f.flid = ANY(${[...flids]}::text[])`, lock ? sql`FOR UPDATE OF f` : sql``);

/** `loadFlights` from the rows of `lockedFlights`: the retired FLIDs among the rest looked up. */
export async function withRetired(db: Db, flids: readonly string[], rows: readonly FlightRow[]): Promise<LoadedFlights> {
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

/**
 * Per collection, the flights whose rows must be rewritten: those whose rows differ from
 * `stored` (the flights as the store holds them), and every collection of a flight not in
 * `stored`. `flights` holds one version per FLID.
 */
export function collectionsToRewrite(flights: readonly FlightState[], stored: ReadonlyMap<string, FlightState>): Map<CollectionName, Set<string>> {
  const rewrite = new Map<CollectionName, Set<string>>();
  for (const f of flights) {
    const before = stored.get(f.flid);
    for (const [name] of COLLECTION_ENTRIES) {
      if (before !== undefined && sameRows(before.collections[name], f.collections[name])) continue;
      const set = rewrite.get(name);
      if (set === undefined) rewrite.set(name, new Set([f.flid]));
      else set.add(f.flid);
    }
  }
  return rewrite;
}

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
  const rewrite = collectionsToRewrite([...byFlid.values()], stored);
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

/**
 * Up to `limit` flights whose operation day is before `cutoffDay`, whole, oldest day first then
 * FLID as a number (the order of `flight_schd_day_flid_idx`), locked for the transaction.
 */
export async function retirableFlights(db: Db, cutoffDay: string, limit: number): Promise<FlightState[]> {
  const { rows } = await selectFlights(
    sql`f.operation_day < ${cutoffDay}`,
    sql`ORDER BY f.operation_day, (f.flid::bigint), f.flid LIMIT ${limit}::integer FOR UPDATE OF f`,
  ).execute(db);
  return rows.map(flightFromRow);
}

/**
 * Writes the history rows, removes the flights from `flight_schd` (their collection rows go by
 * `ON DELETE CASCADE`) and moves the state generation on (a leader holding these flights in memory
 * must load again), in one statement. A flight no longer stored at the version of its final
 * state is not removed; then the statement's counts differ and this throws INFRA, so the caller's
 * transaction writes nothing.
 */
export async function retireFlights(db: Db, flights: readonly RetiredFlight[]): Promise<void> {
  if (flights.length === 0) return;
  const rows = flights.map((r, ord) => ({
    ord,
    flid: r.flid,
    operation_day: r.operationDay,
    state_version: r.finalState.stateVersion,
    deleted: r.finalState.deleted,
    tombstone_version: r.tombstoneVersion,
    last_msg_id: r.finalState.lastMsgId,
    final_state: r.finalState,
    retired_at: r.retiredAt,
  }));
  const { rows: counts } = await sql<{ removed: unknown; kept: unknown }>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(
        ord integer, flid text, operation_day text, state_version bigint, deleted boolean, tombstone_version bigint,
        last_msg_id bigint, final_state jsonb, retired_at bigint)
    ), removed AS (
      DELETE FROM flight_schd f USING input i
      WHERE f.flid = i.flid AND f.state_version = i.state_version
      RETURNING f.flid
    ), generation AS (
      UPDATE pipeline_generation SET generation = generation + 1 WHERE id = 1
    ), kept AS (
      INSERT INTO flight_schd_hst (flid, operation_day, state_version, deleted, tombstone_version, last_msg_id, final_state, retired_at)
      SELECT flid, operation_day, state_version, deleted, tombstone_version, last_msg_id, final_state, to_timestamp(retired_at / 1000.0)
      FROM input ORDER BY ord
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM removed) AS removed, (SELECT count(*) FROM kept) AS kept`.execute(db);
  const removed = toNumber(counts[0]?.removed ?? 0);
  if (removed !== flights.length) {
    throw new MsgxError("INFRA", `history sweep: ${flights.length - removed} of ${flights.length} flights are no longer stored at the version loaded`);
  }
}

/** The history rows of a FLID, oldest retirement first. */
export async function retiredFlights(db: Db, flid: string): Promise<RetiredFlight[]> {
  const { rows } = await sql<{ flid: string; operation_day: string; tombstone_version: unknown; final_state: unknown; retired_at: unknown }>`
    SELECT flid, operation_day, tombstone_version, final_state, retired_at
    FROM flight_schd_hst WHERE flid = ${flid} ORDER BY hst_id`.execute(db);
  return rows.map((r) => ({
    flid: r.flid,
    operationDay: r.operation_day,
    finalState: fromJson<FlightPayload>(r.final_state),
    tombstoneVersion: r.tombstone_version === null || r.tombstone_version === undefined ? null : toNumber(r.tombstone_version),
    retiredAt: toMs(r.retired_at),
  }));
}
