import type { FlightState } from "../model/flight-state.js";
import type { ProcRecord, ProcStatus } from "../model/proc-record.js";
import type { PreparedMessage } from "./prepare-run.js";

/**
 * One `SCHD_SNAP_LOG` row: the trail of a snapshot message (`SCHD/DNLD` or `SCHD/RESP`) a run
 * decided, whatever the outcome (a duplicate, a refused package and a retried failure included).
 * Kept `history.snapLogRetentionDays` (90) and purged by `SnapLogCleaner`.
 */
export interface SnapshotLogEntry {
  readonly msgId: number;
  readonly styp: "DNLD" | "RESP";
  /** The operation day of the package's first flight as stored after the message; null when none is. */
  readonly operationDay: string | null;
  /** `RECS` as declared; null when absent. */
  readonly declaredRecs: number | null;
  /** `FLTR` records in the package. */
  readonly flights: number;
  /** The message's status after the run. */
  readonly outcome: ProcStatus;
  /** The record's reason (why it was skipped, refused or failed, or a note on success); null when none. */
  readonly reason: string | null;
}

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
