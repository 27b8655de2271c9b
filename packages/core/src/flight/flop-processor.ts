import type { FlopBlock } from "../model/flop-block.js";
import type { MsgKind } from "../model/msg-kind.js";
import type { MessageWarning, Processor, ProcessorResult } from "../processing/processor.js";
import { reconcileFfid } from "./ffid-check.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { readFlopChange, type FlopChange } from "./flop-change.js";
import { flopGroup, type FlopGroup } from "../model/flop-matrix.js";
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

interface ReadBlock {
  readonly flid: string;
  readonly ffid: FlopBlock["ffid"];
  readonly change: FlopChange;
}

/**
 * Reads every block by its group's rule: the blocks to apply, or the rejection of the message.
 * Under `flopFaultScope: "block"` a faulty block is left out with a `flop-block-fault` warning
 * instead, unless every block is faulty.
 */
function readBlocks(body: Flop, group: FlopGroup, options: FlightProcessingOptions, warnings: MessageWarning[]): { blocks: ReadBlock[]; faulty: string[] } | { rejected: string } {
  const blocks: ReadBlock[] = [];
  const faulty: string[] = [];
  let first: string | undefined;
  for (const block of body.blocks) {
    const r = readFlopChange(body.styp, group, block, options);
    if (r.ok) {
      blocks.push({ flid: block.flid, ffid: block.ffid, change: r.change });
      continue;
    }
    const reason = `FLOP/${body.styp}: FLID ${block.flid}: ${r.fault}`;
    if (options.flopFaultScope === "message") return { rejected: reason };
    first ??= reason;
    faulty.push(block.flid);
    warnings.push({ code: "flop-block-fault", detail: `${reason}; block skipped` });
  }
  return blocks.length === 0 && first !== undefined ? { rejected: `${first} (every block is faulty)` } : { blocks, faulty };
}

/**
 * `FLOP/<subtype>` other than FDEL: updates the group the subtype names (see `FLOP_MATRIX`) on
 * the flights of its blocks, in block order, in the message's one run. The rules (WIRE.md "FLOP
 * subtypes"):
 *
 * - Every block is read first by its group's absent/empty rule (`readFlopChange`); a PROTOCOL
 *   fault in any block, whatever its flight, rejects the whole message (DEAD PROTOCOL), nothing
 *   written (ours; under `flopFaultScope: "block"` only that block is skipped, with a warning).
 *   Elements outside the group are ignored.
 * - A block for an unknown or deleted flight is skipped with a `no-flight` warning; a block whose
 *   flight is stale (message DTTM before its `lastSrcDttm`) is skipped. The others are applied
 *   in order; several blocks for one flight give one version and one event pair.
 * - FFID: compared with the flight after its block (`reconcileFfid`): stored when every component
 *   agrees, else kept with an `ffid-mismatch` warning. Never a rejection.
 * - Outcome: no block for a known live flight → SKIPPED `no-flight:<FLID>`; every known block
 *   stale → SKIPPED `stale:<FLID>`; otherwise `applied` (possibly with no change), its reason
 *   naming the skipped FLIDs (`no-flight:…;stale:…;fault:…`).
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
      const warnings: MessageWarning[] = [];
      const read = readBlocks(body, group, options, warnings);
      if ("rejected" in read) return { type: "rejected", reason: read.rejected };
      const changes = new MessageChanges(ctx.msgId, ctx.meta, options);
      const noFlight: string[] = [];
      const stale: string[] = [];
      let known = 0;
      for (const block of read.blocks) {
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
        const applied = applyFlopChange(changes.staged(block.flid) ?? stored, block.change, block.flid, options);
        const ffid = reconcileFfid(block.flid, block.ffid, applied.content);
        warnings.push(...applied.warnings, ...(ffid.warning === undefined ? [] : [ffid.warning]));
        changes.stage(block.flid, stored, { ...applied.content, ffid: ffid.ffid });
      }
      const unknown = unique(noFlight);
      const noFlightReason = flidReason("no-flight", unknown);
      const staleReason = flidReason("stale", unique(stale));
      const faultReason = flidReason("fault", unique(read.faulty));
      if (known === 0 && noFlightReason !== undefined) return withWarnings({ type: "skipped", reason: joinReasons(noFlightReason, faultReason)! }, warnings);
      warnings.push(...unknown.map((flid) => ({ code: "no-flight", detail: `FLOP/${body.styp}: no flight FLID ${flid}; its block skipped` })));
      if (stale.length === known && staleReason !== undefined) {
        return withWarnings({ type: "skipped", reason: joinReasons(staleReason, noFlightReason, faultReason)! }, warnings);
      }
      return withWarnings(changes.result(joinReasons(noFlightReason, staleReason, faultReason)), warnings);
    },
  };
}
