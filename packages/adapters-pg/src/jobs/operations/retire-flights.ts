import { MsgxError } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { jsonParam, toNumber } from "../../rows/values.js";
import type { RetiredFlight } from "@msgx/core";

/**
 * Writes the history rows and removes the flights from `flight_schd` (their collection rows go by
 * `ON DELETE CASCADE`) in one statement. A flight no longer stored at the version of its final
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
