import type { MsgKind } from "../model/msg-kind.js";
import type { Processor } from "../processing/processor.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { flopGroup } from "./flop-matrix.js";
import { mergeRecord } from "./merge-record.js";
import { MessageChanges } from "./message-changes.js";
import { flidReason, joinReasons } from "./skip-reason.js";
import { isStale } from "./staleness.js";

type Flop = Extract<MsgKind, { kind: "flop" }>;

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/**
 * `FLOP/<subtype>` other than FDEL: updates the group the subtype names (see `FLOP_MATRIX`) on
 * the flights of its blocks, in block order. Other elements of a block are ignored. The rules:
 *
 * - A subtype outside the matrix: FAILED(UNSUPPORTED), nothing written (replayable).
 * - A block whose FFID is stated and differs from the flight's stored FFID: the whole message is
 *   rejected (DEAD PROTOCOL), nothing written, since a FLID that now names another flight must
 *   not update this one. A stored FFID of `null` adopts the stated one (the first FFID we hear
 *   pins the flight); an empty FFID says nothing.
 * - Blocks for unknown or deleted flights are skipped; blocks whose flight is stale (message DTTM
 *   before its `lastSrcDttm`) are skipped. The others are applied.
 * - Outcome: no block for a known live flight → SKIPPED `no-flight:<FLID>`; every known block
 *   stale → SKIPPED `stale:<FLID>`; otherwise `applied` (possibly with no change), its reason
 *   naming the skipped FLIDs.
 * - Several blocks for one flight are applied in order and give one version and one event pair.
 */
export function flopProcessor(options: FlightProcessingOptions): Processor<Flop> {
  return {
    flightsOf: (body) => unique(body.blocks.map((b) => b.flid)),
    apply(body, ctx) {
      const group = flopGroup(body.styp);
      if (group === undefined) return { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported FLOP subtype ${body.styp}` };
      const changes = new MessageChanges(ctx.msgId, ctx.meta, options);
      const noFlight: string[] = [];
      const stale: string[] = [];
      let known = 0;
      for (const block of body.blocks) {
        const stored = ctx.flights.get(block.flid);
        if (stored === undefined || stored.deleted) {
          noFlight.push(block.flid);
          continue;
        }
        known++;
        const current = changes.staged(block.flid) ?? stored;
        if (typeof block.ffid === "string" && current.ffid !== null && current.ffid !== block.ffid) {
          return { type: "rejected", reason: `FLOP/${body.styp}: FLID ${block.flid} FFID ${block.ffid} differs from stored ${current.ffid}` };
        }
        if (isStale(stored, ctx.meta)) {
          stale.push(block.flid);
          continue;
        }
        const merged = mergeRecord(current, block, group);
        changes.stage(block.flid, stored, { ...merged, ffid: typeof block.ffid === "string" ? block.ffid : current.ffid });
      }
      const noFlightReason = flidReason("no-flight", unique(noFlight));
      const staleReason = flidReason("stale", unique(stale));
      if (known === 0 && noFlightReason !== undefined) return { type: "skipped", reason: noFlightReason };
      if (stale.length === known && staleReason !== undefined) return { type: "skipped", reason: staleReason };
      return changes.result(joinReasons(noFlightReason, staleReason));
    },
  };
}
