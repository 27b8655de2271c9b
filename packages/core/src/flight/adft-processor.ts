import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import { applySchdRecords } from "./apply-schd-records.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { checkSchdPackage } from "./schd-package-check.js";

type Adft = Extract<MsgKind, { kind: "adft" }>;

/**
 * `SCHD/ADFT`, and `SCHD/ADD` / `SCHD/UPD` while `schdAddUpdAsAdft` holds (the default; else
 * FAILED(UNSUPPORTED), nothing written): adds or updates the listed flights and deletes nothing.
 * Each record is its flight's full state, as in a snapshot. The package is checked as a whole
 * first, exactly like a snapshot's but for at least one record (`FLTR+`). Any violation: rejected
 * (DEAD PROTOCOL), nothing written.
 */
export function adftProcessor(options: FlightProcessingOptions): Processor<Adft> {
  return {
    flightsOf: (body) => body.body.flights.map((f) => f.flid),
    apply(body, ctx) {
      if (body.styp !== "ADFT" && !options.schdAddUpdAsAdft) {
        return { type: "failed", errorClass: "UNSUPPORTED", reason: `SCHD/${body.styp} is not applied as ADFT (schdAddUpdAsAdft off)` };
      }
      const verdict = checkSchdPackage(body.body, ctx.flights, {
        minRecords: 1,
        recsCheck: options.schdRecsCheck,
        dayStartOffsetMinutes: options.dayStartOffsetMinutes,
      });
      if (verdict.fault !== undefined) return { type: "rejected", reason: `${body.styp}: ${verdict.fault}` };
      return applySchdRecords(body.body.flights, ctx, options, verdict.warnings);
    },
  };
}
