import type { WireValue } from "../model/flight-record.js";
import type { Meta } from "../model/meta.js";
import type { FlightState } from "../model/flight-state.js";
import type { MessageChanges } from "./message-changes.js";
import { isStale } from "./staleness.js";

/** What deleting one flight came to. */
export type FlightDeleteOutcome = "no-flight" | "already-deleted" | "stale" | "deleted";

/**
 * Deletes one flight into `changes`, the one rule FLOP/FDEL and SCHD/DEL share: the flight is
 * marked deleted and stays stored as a tombstone (content kept, version + 1) until the history
 * sweep retires it; its events are TOMBSTONEs (see `flightEvents`).
 * - `no-flight`: never stored; nothing staged.
 * - `already-deleted`: nothing staged (a repeated delete changes nothing).
 * - `stale`: the message's DTTM is before the flight's `lastSrcDttm`; nothing staged, since a
 *   delete older than the flight's last change must not undo it.
 * - `deleted`: staged, with `ffid` when given (FDEL's reconciled FFID), else the stored one.
 */
export function stageFlightDelete(changes: MessageChanges, flid: string, stored: FlightState | undefined, meta: Meta, ffid?: WireValue): FlightDeleteOutcome {
  if (stored === undefined) return "no-flight";
  if (stored.deleted) return "already-deleted";
  if (isStale(stored, meta)) return "stale";
  changes.stage(flid, stored, { ...stored, ffid: ffid === undefined ? stored.ffid : ffid, deleted: true });
  return "deleted";
}
