import type { ProcessorTable } from "../processing/processor.js";
import { referenceProcessor } from "../processing/reference-processor.js";
import { adftProcessor } from "./adft-processor.js";
import { fdelProcessor } from "./fdel-processor.js";
import { flightProcessingOptions, type FlightProcessingOptions } from "./flight-processing-options.js";
import { flopProcessor } from "./flop-processor.js";
import { schdDelProcessor } from "./schd-del-processor.js";
import { snapshotProcessor } from "./snapshot-processor.js";

/**
 * Every processor msgx has, by kind — one for each kind the kinds table (`KINDS`,
 * codec/type-policy.ts) processes by default: the flight processors (SPEC §2.3, WIRE.md "Kinds")
 * `snapshot` (SCHD/DNLD, RESP), `adft` (SCHD/ADFT, ADD, UPD), `schdDel` (SCHD/DEL), `flop`,
 * `fdel`, and `reference` (reference data into REF_MASTER; a RESP only as the answer to an open
 * RQRD). No processor exists for `seasonal` (SCHS is ignored by default).
 * Every one is pure and obeys the same rules: the version rises by exactly one per flight and
 * message, and only when the content really changed; a stale message never rolls a flight back;
 * absent (unknown) and `null`/`[]` (cleared) stay apart; the operation day is set once; each
 * changed flight yields one event per target. Options not given take their defaults.
 */
export function defaultProcessors(options: Partial<FlightProcessingOptions> = {}): ProcessorTable {
  const o = flightProcessingOptions(options);
  return {
    snapshot: snapshotProcessor(o),
    adft: adftProcessor(o),
    schdDel: schdDelProcessor(o),
    flop: flopProcessor(o),
    fdel: fdelProcessor(o),
    reference: referenceProcessor({ airportUtcOffsetMinutes: o.airportUtcOffsetMinutes }),
  };
}
