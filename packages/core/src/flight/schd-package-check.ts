import { operationDayOf } from "../codec/body-time.js";
import { REQUIRED_SCHD_FIELDS } from "../model/flight-schema.js";
import type { SchdBody } from "../model/msg-kind.js";
import type { FlightView, MessageWarning } from "../processing/processor.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";

/** What a package check needs to know beyond the package. */
export interface SchdPackageRules {
  /** Fewest records a valid package holds (0 for a snapshot, 1 for ADFT and DEL: `FLTR+`). */
  readonly minRecords: number;
  readonly recsCheck: FlightProcessingOptions["schdRecsCheck"];
  readonly dayStartOffsetMinutes: number;
}

/** The first violation (`fault`), or the warnings of a sound package. */
export type SchdPackageVerdict = { readonly fault: string } | { readonly fault?: undefined; readonly warnings: readonly MessageWarning[] };

/**
 * The rules every SCHD package obeys, whatever it carries (WIRE.md "Snapshot rules"), on its
 * declared `recs` and the FLIDs of its records:
 * - `RECS` missing, or not the number of `FLTR` records: a fault, or with `recsCheck: "warn"` a
 *   `recs-mismatch` warning;
 * - fewer records than `minRecords`; a FLID twice in the package.
 */
export function checkSchdFlids(recs: number | undefined, flids: readonly string[], rules: Pick<SchdPackageRules, "minRecords" | "recsCheck">): SchdPackageVerdict {
  const n = flids.length;
  const recsFault = recs === undefined ? "RECS missing" : recs !== n ? `RECS ${recs} but ${n} FLTR` : undefined;
  if (recsFault !== undefined && rules.recsCheck === "reject") return { fault: recsFault };
  if (n < rules.minRecords) return { fault: `at least ${rules.minRecords} FLTR expected, got ${n}` };
  const seen = new Set<string>();
  for (const flid of flids) {
    if (seen.has(flid)) return { fault: `duplicate FLID ${flid}` };
    seen.add(flid);
  }
  return { warnings: recsFault === undefined ? [] : [{ code: "recs-mismatch", detail: `SCHD: ${recsFault}` }] };
}

/**
 * Checks a whole SCHD package of flight records (snapshot, ADFT) before anything is applied; the
 * first violation, or the package's warnings:
 * - the rules of {@link checkSchdFlids};
 * - a required field (REQUIRED_SCHD_FIELDS) absent or cleared (`null`) in any record: every SCHD
 *   record is the flight's full state, so it must state them all;
 * - a live (not deleted) stored flight whose operation day differs from the one the record's
 *   SODT gives. A deleted flight is not checked: a record for it starts a new life with its own
 *   operation day.
 * Values outside their domain never get here: the codec refuses them as PROTOCOL.
 */
export function checkSchdPackage(body: SchdBody, flights: FlightView, rules: SchdPackageRules): SchdPackageVerdict {
  const verdict = checkSchdFlids(
    body.recs,
    body.flights.map((f) => f.flid),
    rules,
  );
  if (verdict.fault !== undefined) return verdict;
  for (const record of body.flights) {
    for (const name of REQUIRED_SCHD_FIELDS) {
      const v = record.scalars[name];
      if (v === null) return { fault: `FLID ${record.flid}: required ${name} is empty` };
      if (v === undefined) return { fault: `FLID ${record.flid}: required ${name} missing` };
    }
    const stored = flights.get(record.flid);
    const sodt = record.scalars.SODT;
    if (stored !== undefined && !stored.deleted && stored.operationDay !== null && typeof sodt === "string") {
      const day = operationDayOf(sodt, rules.dayStartOffsetMinutes);
      if (day !== stored.operationDay) {
        return { fault: `FLID ${record.flid}: operation day ${day} differs from stored ${stored.operationDay}` };
      }
    }
  }
  return verdict;
}
