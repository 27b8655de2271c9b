import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import { reconcileFfid } from "./ffid-check.js";
import { stageFlightDelete } from "./flight-delete.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { MessageChanges } from "./message-changes.js";

type Fdel = Extract<MsgKind, { kind: "fdel" }>;

/**
 * `FLOP/FDEL`: marks the flight deleted (`stageFlightDelete`, the rule SCHD/DEL shares). It stays
 * stored as a tombstone (content kept, version + 1) until the history sweep retires it; its events
 * are TOMBSTONEs (see `flightEvents`).
 *
 * - Unknown flight: SKIPPED `no-flight:<FLID>`.
 * - Already deleted: `applied` with no change and reason `already-deleted:<FLID>` (idempotent).
 * - Stale (message DTTM before the flight's `lastSrcDttm`): SKIPPED `stale:<FLID>`; a delete
 *   older than the flight's last change does not undo it.
 * - FFID stated: compared with the flight as for any FLOP (`reconcileFfid`); a mismatch is an
 *   `ffid-mismatch` warning, never a rejection; the delete applies either way.
 */
export function fdelProcessor(options: FlightProcessingOptions): Processor<Fdel> {
  return {
    flightsOf: (body) => [body.flid],
    apply(body, ctx) {
      const stored = ctx.flights.get(body.flid);
      const ffid = stored === undefined ? undefined : reconcileFfid(body.flid, body.ffid, stored);
      const changes = new MessageChanges(ctx.msgId, ctx.meta, options);
      switch (stageFlightDelete(changes, body.flid, stored, ctx.meta, ffid?.ffid)) {
        case "no-flight":
          return { type: "skipped", reason: `no-flight:${body.flid}` };
        case "already-deleted":
          return { type: "applied", flights: [], events: [], reason: `already-deleted:${body.flid}` };
        case "stale":
          return { type: "skipped", reason: `stale:${body.flid}` };
        case "deleted": {
          const result = changes.result();
          return ffid?.warning === undefined || result.type !== "applied" ? result : { ...result, warnings: [ffid.warning] };
        }
      }
    },
  };
}
