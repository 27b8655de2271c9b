import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import { stageFlightDelete, type FlightDeleteOutcome } from "./flight-delete.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { MessageChanges } from "./message-changes.js";
import { checkSchdFlids } from "./schd-package-check.js";
import { flidReason, joinReasons } from "./skip-reason.js";

type SchdDel = Extract<MsgKind, { kind: "schdDel" }>;

/**
 * `SCHD/DEL` (WIRE.md "Kinds"): deletes the listed flights, each exactly as FLOP/FDEL does
 * (`stageFlightDelete`: state marked deleted, TOMBSTONE events). Only the FLIDs are read.
 *
 * - The package rules of every SCHD package hold first (`checkSchdFlids`: RECS, at least one
 *   record, no FLID twice); a violation is rejected (DEAD PROTOCOL), nothing written. A wrong
 *   RECS is a `recs-mismatch` warning instead under `schdRecsCheck: "warn"`.
 * - Unknown FLIDs are no-ops, and so are flights already deleted; stale flights (message DTTM
 *   before their `lastSrcDttm`) are left alone.
 * - Outcome: no FLID names a stored flight → SKIPPED `no-flight:<FLID>`; every stored one stale
 *   → SKIPPED `stale:<FLID>`; otherwise `applied`, its reason naming the FLIDs left alone.
 */
export function schdDelProcessor(options: FlightProcessingOptions): Processor<SchdDel> {
  return {
    flightsOf: (body) => body.body.flids,
    apply(body, ctx) {
      const verdict = checkSchdFlids(body.body.recs, body.body.flids, { minRecords: 1, recsCheck: options.schdRecsCheck });
      if (verdict.fault !== undefined) return { type: "rejected", reason: `DEL: ${verdict.fault}` };
      const changes = new MessageChanges(ctx.msgId, ctx.meta, options);
      const left: Record<Exclude<FlightDeleteOutcome, "deleted">, string[]> = { "no-flight": [], "already-deleted": [], stale: [] };
      for (const flid of body.body.flids) {
        const outcome = stageFlightDelete(changes, flid, ctx.flights.get(flid), ctx.meta);
        if (outcome !== "deleted") left[outcome].push(flid);
      }
      const extra = verdict.warnings.length === 0 ? {} : { warnings: verdict.warnings };
      const n = body.body.flids.length;
      const noFlight = flidReason("no-flight", left["no-flight"]);
      const stale = flidReason("stale", left.stale);
      if (noFlight !== undefined && left["no-flight"].length === n) return { type: "skipped", reason: noFlight, ...extra };
      if (stale !== undefined && left.stale.length === n - left["no-flight"].length) return { type: "skipped", reason: stale, ...extra };
      const result = changes.result(joinReasons(noFlight, flidReason("already-deleted", left["already-deleted"]), stale));
      return result.type === "applied" ? { ...result, ...extra } : result;
    },
  };
}
