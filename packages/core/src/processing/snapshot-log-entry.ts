import type { FlightState } from "../model/flight-state.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { PreparedMessage } from "./prepare-run.js";
import type { SnapshotLogEntry } from "./run-decision.js";

/** The `SCHD_SNAP_LOG` row of a snapshot message (`SCHD/DNLD|RESP`) as decided; undefined for any other. */
export function snapshotLogEntry(m: PreparedMessage, record: ProcRecord, flights: ReadonlyMap<string, FlightState>): SnapshotLogEntry | undefined {
  const body = m.decoded?.ok ? m.decoded.message.body : undefined;
  if (body?.kind !== "snapshot") return undefined;
  const first = body.body.flights[0];
  return {
    msgId: record.msgId,
    styp: body.styp,
    operationDay: (first === undefined ? undefined : flights.get(first.flid)?.operationDay) ?? null,
    declaredRecs: body.body.recs ?? null,
    flights: body.body.flights.length,
    outcome: record.status,
    reason: record.reason,
  };
}
