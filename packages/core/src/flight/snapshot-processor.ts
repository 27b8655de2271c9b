import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import { applySchdRecords } from "./apply-schd-records.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { matchScheduleRequest, withinRequest } from "./request-match.js";
import { checkSchdPackage } from "./schd-package-check.js";

type Snapshot = Extract<MsgKind, { kind: "snapshot" }>;

/**
 * `SCHD/DNLD` and `SCHD/RESP` (SPEC §2.3): a snapshot of many flights, all or nothing.
 *
 * 1. RESP only: it must answer an open RQFD (see `matchScheduleRequest`); if none matches it
 *    changes nothing: SKIPPED `no-request`. This comes first: an unasked reply is not judged.
 * 2. The whole package is checked before any change (`checkSchdPackage`, every record must state
 *    every required field); for a RESP also every record's SODT must lie inside the matched
 *    request's `[from, to]`. Any violation: rejected (DEAD PROTOCOL), nothing written.
 * 3. Every record is merged into its flight (`applySchdRecords`); flights absent from the
 *    snapshot are not deleted.
 */
export function snapshotProcessor(options: FlightProcessingOptions): Processor<Snapshot> {
  return {
    flightsOf: (body) => body.body.flights.map((f) => f.flid),
    apply(body, ctx) {
      const request = body.styp === "RESP" ? matchScheduleRequest(ctx.openRequests, ctx.meta.dttm, options.airportUtcOffsetMinutes) : undefined;
      if (body.styp === "RESP" && request === undefined) return { type: "skipped", reason: "no-request" };
      const fault = checkSchdPackage(body.body, ctx.flights, {
        requireAllFields: true,
        minRecords: 0,
        dayStartOffsetMinutes: options.dayStartOffsetMinutes,
      });
      if (fault !== undefined) return { type: "rejected", reason: `${body.styp}: ${fault}` };
      if (request !== undefined) {
        const outside = body.body.flights.find((f) => !withinRequest(request, f.scalars.SODT ?? ""));
        if (outside !== undefined) {
          return {
            type: "rejected",
            reason: `RESP: FLID ${outside.flid} SODT ${outside.scalars.SODT} outside request ${request.requestId} [${request.from ?? ""}, ${request.to ?? ""}]`,
          };
        }
      }
      return applySchdRecords(body.body.flights, ctx, options);
    },
  };
}
