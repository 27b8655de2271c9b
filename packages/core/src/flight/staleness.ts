import type { Meta } from "../model/meta.js";
import type { FlightState } from "../model/flight-state.js";

/**
 * Whether a message is older than the last change of a stored flight: its META DTTM is before
 * the flight's `lastSrcDttm` (both `yyyyMMddHHmmss`, so text order is time order). Such a message
 * must not roll the flight back, so processors leave that flight out of it. An equal DTTM is not
 * stale: upstream stamps to the second and sends several messages within one.
 */
export function isStale(flight: FlightState | undefined, meta: Meta): boolean {
  return flight !== undefined && meta.dttm < flight.lastSrcDttm;
}
