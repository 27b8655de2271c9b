import { airportDayBefore } from "../model/airport-day.js";
import type { FlightState } from "../model/flight-state.js";

/** How long flights stay live, and where the airport's day is. */
export interface RetirementOptions {
  /**
   * Whole days a flight stays live after its operation day: with 3, on operation day D every
   * flight whose operation day is before D − 3 is retired (D − 3 itself stays one more day).
   */
  readonly retentionDays: number;
  /** The airport's fixed offset from UTC in minutes (+480 for China), to find the local date of `now`. */
  readonly airportUtcOffsetMinutes: number;
  /** Minutes after local midnight the operation day starts (`airport.dayStartOffsetMinutes`); 0 when absent. */
  readonly dayStartOffsetMinutes?: number;
}

/** What the daily history sweep (SPEC §2.7) does to the flights it looked at. */
export interface RetirementDecision {
  /** `yyyyMMdd`: flights whose operation day is before it are retired. */
  readonly cutoffDay: string;
  /** The flights to copy to history and remove from the live tables, as stored, deleted or not. */
  readonly retired: readonly FlightState[];
  /**
   * For each retired flight that is not already deleted, its tombstone state: `deleted: true`,
   * version + 1 (so a compacted topic orders the delete after the last upsert), bookkeeping
   * otherwise unchanged (no message caused it). Build its events with `flightEvents`. Flights
   * already deleted had their tombstone sent by FDEL.
   */
  readonly tombstones: readonly FlightState[];
}

/**
 * The first operation day that stays live at `now`: the operation day `now` falls in minus
 * `retentionDays`, as `yyyyMMdd`. Stores can use it in one set-based statement.
 */
export function retirementCutoffDay(now: number, options: RetirementOptions): string {
  return airportDayBefore(now, options.retentionDays, options.airportUtcOffsetMinutes, options.dayStartOffsetMinutes);
}

/**
 * Pure: which flights the history sweep retires at `now`, and which of them need a tombstone.
 * A flight is retired when its operation day is before the cutoff day, deleted or not. A flight
 * with no operation day (which the processors never store) cannot be dated and stays.
 */
export function decideRetirement(flights: Iterable<FlightState>, now: number, options: RetirementOptions): RetirementDecision {
  if (!Number.isInteger(options.retentionDays) || options.retentionDays < 0) {
    throw new RangeError(`retentionDays must be a non-negative integer, got ${options.retentionDays}`);
  }
  const cutoffDay = retirementCutoffDay(now, options);
  const retired: FlightState[] = [];
  const tombstones: FlightState[] = [];
  for (const f of flights) {
    if (f.operationDay === null || f.operationDay >= cutoffDay) continue;
    retired.push(f);
    if (!f.deleted) tombstones.push({ ...f, deleted: true, stateVersion: f.stateVersion + 1 });
  }
  return { cutoffDay, retired, tombstones };
}

/**
 * How `PipelineTx.loadFlights` shows a FLID that is not stored but has retired to history: a
 * deleted flight at the highest version it reached (its retirement tombstone's, or its FDEL's when
 * FDEL had deleted it), with no content, no FFID, no operation day and no `lastSrcDttm` (nothing
 * is stale against it). A record for it then starts a new life above that version, exactly as
 * after an FDEL, so the version per FLID on the topics never goes down; a FLOP skips it and an
 * FDEL finds it already deleted.
 */
export function retiredFlightState(flid: string, version: number, lastMsgId: number): FlightState {
  return { flid, ffid: null, operationDay: null, stateVersion: version, lastMsgId, lastSrcDttm: "", deleted: true, scalars: {}, collections: {} };
}
