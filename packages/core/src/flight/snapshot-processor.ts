import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import { applySchdRecords } from "./apply-schd-records.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { matchReply } from "../requests/reply-match.js";
import { withinRequest } from "./request-match.js";
import { checkSchdPackage } from "./schd-package-check.js";

type Snapshot = Extract<MsgKind, { kind: "snapshot" }>;

/**
 * `SCHD/DNLD` and `SCHD/RESP` (SPEC §2.3): a snapshot of many flights, all or nothing.
 *
 * 1. RESP only: it must answer an open RQFD (see `matchReply`); if none matches it changes
 *    nothing: SKIPPED `no-request`. This comes first: an unasked reply is not judged. A matched
 *    RESP that is applied (or skipped as entirely stale) reports `answered`, and the run closes
 *    the request (DONE) in the same transaction.
 * 2. The whole package is checked before any change (`checkSchdPackage`); for a RESP also every
 *    record's SODT must lie inside the matched request's `[from, to]`. Any violation: rejected
 *    (DEAD PROTOCOL), nothing written. A wrong RECS is a warning instead under
 *    `schdRecsCheck: "warn"`.
 * 3. Every record replaces its flight's state (`applySchdRecords`); flights absent from the
 *    snapshot are not deleted.
 */
export function snapshotProcessor(options: FlightProcessingOptions): Processor<Snapshot> {
  return {
    flightsOf: (body) => body.body.flights.map((f) => f.flid),
    apply(body, ctx) {
      const match =
        body.styp === "RESP"
          ? matchReply(ctx.openRequests, { requestType: "RQFD", dttm: ctx.meta.dttm }, { airportUtcOffsetMinutes: options.airportUtcOffsetMinutes })
          : undefined;
      if (body.styp === "RESP" && match === undefined) return { type: "skipped", reason: "no-request" };
      const request = match?.request;
      const verdict = checkSchdPackage(body.body, ctx.flights, {
        minRecords: 0,
        recsCheck: options.schdRecsCheck,
        dayStartOffsetMinutes: options.dayStartOffsetMinutes,
      });
      if (verdict.fault !== undefined) return { type: "rejected", reason: `${body.styp}: ${verdict.fault}` };
      if (request !== undefined) {
        const outside = body.body.flights.find((f) => !withinRequest(request, f.scalars.SODT ?? ""));
        if (outside !== undefined) {
          return {
            type: "rejected",
            reason: `RESP: FLID ${outside.flid} SODT ${outside.scalars.SODT} outside request ${request.requestId} [${request.from ?? ""}, ${request.to ?? ""}]`,
          };
        }
      }
      const result = applySchdRecords(body.body.flights, ctx, options, verdict.warnings);
      return match !== undefined && (result.type === "applied" || result.type === "skipped") ? { ...result, answered: match } : result;
    },
  };
}
