import type { FlopBlock } from "../model/flop-block.js";
import type { MsgKind } from "../model/msg-kind.js";
import type { MessageWarning, Processor, ProcessorResult } from "../processing/processor.js";
import { reconcileFfid } from "./ffid-check.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { readFlopChange, type FlopChange } from "./flop-change.js";
import { flopGroup } from "./flop-matrix.js";
import { applyFlopChange } from "./flop-merge.js";
import { MessageChanges } from "./message-changes.js";
import { flidReason, joinReasons } from "./skip-reason.js";
import { isStale } from "./staleness.js";

type Flop = Extract<MsgKind, { kind: "flop" }>;

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/** The result with the message's warnings attached, when it can carry any. */
function withWarnings(result: ProcessorResult, warnings: readonly MessageWarning[]): ProcessorResult {
  if (warnings.length === 0 || (result.type !== "applied" && result.type !== "skipped")) return result;
  return { ...result, warnings };
}

/**
 * `FLOP/<subtype>` other than FDEL: updates the group the subtype names (see `FLOP_MATRIX`) on
 * the flights of its blocks, in block order, in the message's one run. The rules (WIRE.md "FLOP
 * subtypes"):
 *
 * - Every block is read first by its group's absent/empty rule (`readFlopChange`); a PROTOCOL
 *   fault in any block, whatever its flight, rejects the whole message (DEAD PROTOCOL), nothing
 *   written. Elements outside the group are ignored.
 * - A block for an unknown or deleted flight is skipped with a `no-flight` warning; a block whose
 *   flight is stale (message DTTM before its `lastSrcDttm`) is skipped. The others are applied
 *   in order; several blocks for one flight give one version and one event pair.
 * - FFID: compared with the flight after its block (`reconcileFfid`): stored when every component
 *   agrees, else kept with an `ffid-mismatch` warning. Never a rejection.
 * - Outcome: no block for a known live flight → SKIPPED `no-flight:<FLID>`; every known block
 *   stale → SKIPPED `stale:<FLID>`; otherwise `applied` (possibly with no change), its reason
 *   naming the skipped FLIDs.
 * - A subtype outside the matrix never gets here (the type policy decides its fate); should one,
 *   it is FAILED(UNSUPPORTED), nothing written.
 */
export function flopProcessor(options: FlightProcessingOptions): Processor<Flop> {
  return {
    flightsOf: (body) => unique(body.blocks.map((b) => b.flid)),
    apply(body, ctx) {
      const group = flopGroup(body.styp);
      if (group === undefined || group.group === "delete") {
        return { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported FLOP subtype ${body.styp}` };
      }
      const read: { readonly flid: string; readonly ffid: FlopBlock["ffid"]; readonly change: FlopChange }[] = [];
      for (const block of body.blocks) {
        const r = readFlopChange(body.styp, group, block);
        if (!r.ok) return { type: "rejected", reason: `FLOP/${body.styp}: FLID ${block.flid}: ${r.fault}` };
        read.push({ flid: block.flid, ffid: block.ffid, change: r.change });
      }
      const changes = new MessageChanges(ctx.msgId, ctx.meta, options);
      const warnings: MessageWarning[] = [];
      const noFlight: string[] = [];
      const stale: string[] = [];
      let known = 0;
      for (const block of read) {
        const stored = ctx.flights.get(block.flid);
        if (stored === undefined || stored.deleted) {
          noFlight.push(block.flid);
          continue;
        }
        known++;
        if (isStale(stored, ctx.meta)) {
          stale.push(block.flid);
          continue;
        }
        const applied = applyFlopChange(changes.staged(block.flid) ?? stored, block.change, block.flid);
        const ffid = reconcileFfid(block.flid, block.ffid, applied.content);
        warnings.push(...applied.warnings, ...(ffid.warning === undefined ? [] : [ffid.warning]));
        changes.stage(block.flid, stored, { ...applied.content, ffid: ffid.ffid });
      }
      const unknown = unique(noFlight);
      const noFlightReason = flidReason("no-flight", unknown);
      const staleReason = flidReason("stale", unique(stale));
      if (known === 0 && noFlightReason !== undefined) return { type: "skipped", reason: noFlightReason };
      warnings.push(...unknown.map((flid) => ({ code: "no-flight", detail: `FLOP/${body.styp}: no flight FLID ${flid}; its block skipped` })));
      if (stale.length === known && staleReason !== undefined) return withWarnings({ type: "skipped", reason: joinReasons(staleReason, noFlightReason)! }, warnings);
      return withWarnings(changes.result(joinReasons(noFlightReason, staleReason)), warnings);
    },
  };
}
