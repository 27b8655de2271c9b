import { operationDayOf } from "../codec/body-time.js";
import type { FlightRecord } from "../model/flight-record.js";
import type { MessageWarning, ProcessorContext, ProcessorResult } from "../processing/processor.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import { EMPTY_CONTENT, schdRecordContent } from "./merge-record.js";
import { MessageChanges } from "./message-changes.js";
import { flidReason, joinReasons } from "./skip-reason.js";
import { isStale } from "./staleness.js";

/**
 * Applies the records of a checked SCHD package (snapshot or ADFT), each as the full state of its
 * flight (`schdRecordContent`). A record for an unknown flight creates it; a record for a deleted
 * flight creates it anew (fresh content, new operation day, the version going on from the
 * tombstone's so the compacted topic orders it after the delete). The operation day is set once
 * from SODT and never moved. A stated FFID is stored (WIRE.md: SCHD records carry none).
 *
 * Stale records (DTTM before the flight's `lastSrcDttm`) are left out. When every record is
 * stale the result is SKIPPED `stale:<FLID>`; otherwise `applied`, its reason naming any stale
 * ones. Flights absent from the package are not touched. `warnings` (the package check's) ride on
 * the result.
 */
export function applySchdRecords(
  records: readonly FlightRecord[],
  ctx: ProcessorContext,
  options: FlightProcessingOptions,
  warnings: readonly MessageWarning[] = [],
): ProcessorResult {
  const changes = new MessageChanges(ctx.msgId, ctx.meta, options);
  const stale: string[] = [];
  for (const record of records) {
    const stored = ctx.flights.get(record.flid);
    if (isStale(stored, ctx.meta)) {
      stale.push(record.flid);
      continue;
    }
    const base = stored !== undefined && !stored.deleted ? stored : EMPTY_CONTENT;
    const sodt = record.scalars.SODT;
    changes.stage(record.flid, stored, {
      ...schdRecordContent(base, record),
      ffid: typeof record.ffid === "string" ? record.ffid : base.ffid,
      operationDay: base.operationDay ?? (typeof sodt === "string" ? operationDayOf(sodt, options.dayStartOffsetMinutes) : null),
      deleted: false,
    });
  }
  const extra = warnings.length === 0 ? {} : { warnings };
  const staleReason = flidReason("stale", stale);
  if (staleReason !== undefined && stale.length === records.length) return { type: "skipped", reason: staleReason, ...extra };
  const result = changes.result(joinReasons(staleReason));
  return result.type === "applied" ? { ...result, ...extra } : result;
}
