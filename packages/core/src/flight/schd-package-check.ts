import { operationDayOf } from "../codec/body-time.js";
import { REQUIRED_SCHD_FIELDS } from "../model/flight-schema.js";
import type { SchdBody } from "../model/msg-kind.js";
import type { FlightView } from "../processing/processor.js";

/** What a package check needs to know about the records it reads. */
export interface SchdPackageRules {
  /**
   * Snapshot: every record must state every required field. ADFT: only records that create a
   * flight (new, or re-created after a delete) must; updates may leave them absent (unchanged).
   */
  readonly requireAllFields: boolean;
  /** Fewest records a valid package holds (0 for a snapshot, 1 for ADFT: `FLTR+`). */
  readonly minRecords: number;
  readonly dayStartOffsetMinutes: number;
}

/**
 * Checks a whole SCHD package before anything is applied (WIRE.md "Snapshot rules"); the reason
 * of the first violation, or undefined when the package is sound:
 * - `RECS` missing, or not the number of `FLTR` records; fewer records than `minRecords`;
 * - a FLID twice in the package;
 * - a required field (REQUIRED_SCHD_FIELDS) cleared (`null`) in any record, or absent where
 *   `requireAllFields` or the record creates a flight;
 * - a live (not deleted) stored flight whose operation day differs from the one the record's
 *   SODT gives. A deleted flight is not checked: a record for it starts a new life with its own
 *   operation day.
 * Values outside their domain never get here: the codec refuses them as PROTOCOL.
 */
export function checkSchdPackage(body: SchdBody, flights: FlightView, rules: SchdPackageRules): string | undefined {
  const n = body.flights.length;
  if (body.recs === undefined) return "RECS missing";
  if (body.recs !== n) return `RECS ${body.recs} but ${n} FLTR`;
  if (n < rules.minRecords) return `at least ${rules.minRecords} FLTR expected, got ${n}`;
  const seen = new Set<string>();
  for (const record of body.flights) {
    if (seen.has(record.flid)) return `duplicate FLID ${record.flid}`;
    seen.add(record.flid);
  }
  for (const record of body.flights) {
    const stored = flights.get(record.flid);
    const live = stored !== undefined && !stored.deleted ? stored : undefined;
    const needAll = rules.requireAllFields || live === undefined;
    for (const name of REQUIRED_SCHD_FIELDS) {
      const v = record.scalars[name];
      if (v === null) return `FLID ${record.flid}: required ${name} is empty`;
      if (v === undefined && needAll) return `FLID ${record.flid}: required ${name} missing`;
    }
    const sodt = record.scalars.SODT;
    if (live?.operationDay != null && typeof sodt === "string") {
      const day = operationDayOf(sodt, rules.dayStartOffsetMinutes);
      if (day !== live.operationDay) {
        return `FLID ${record.flid}: operation day ${day} differs from stored ${live.operationDay}`;
      }
    }
  }
  return undefined;
}
