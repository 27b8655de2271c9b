import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import { applySchdRecords } from "./apply-schd-records.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { checkSchdPackage } from "./schd-package-check.js";

type Adft = Extract<MsgKind, { kind: "adft" }>;

/**
 * `SCHD/ADFT`: adds or updates the listed flights and deletes nothing. The package is checked as
 * a whole first, like a snapshot, except that a record updating a live flight may leave required
 * fields absent (unchanged); one creating a flight must state them all, and no record may clear
 * one. Any violation: rejected (DEAD PROTOCOL), nothing written.
 */
export function adftProcessor(options: FlightProcessingOptions): Processor<Adft> {
  return {
    flightsOf: (body) => body.body.flights.map((f) => f.flid),
    apply(body, ctx) {
      const fault = checkSchdPackage(body.body, ctx.flights, {
        requireAllFields: false,
        minRecords: 1,
        dayStartOffsetMinutes: options.dayStartOffsetMinutes,
      });
      if (fault !== undefined) return { type: "rejected", reason: `ADFT: ${fault}` };
      return applySchdRecords(body.body.flights, ctx, options);
    },
  };
}
