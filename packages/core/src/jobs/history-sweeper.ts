import { flightEvents } from "../flight/flight-events.js";
import { flightToPayload } from "../flight/flight-payload.js";
import { decideRetirement, retirementCutoffDay } from "../flight/history-retirement.js";
import { Target } from "../outbox/outbox-event.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { MaintenanceStore, RetiredFlight } from "./maintenance-store.js";

export interface HistorySweepOptions {
  /** Whole days a flight stays live after its operation day (`history.retentionDays`). */
  readonly retentionDays: number;
  /** The airport's fixed offset from UTC in minutes (`airport.utcOffsetMinutes`). */
  readonly airportUtcOffsetMinutes: number;
  /** Minutes after local midnight the operation day starts (`airport.dayStartOffsetMinutes`); 0 when absent. */
  readonly dayStartOffsetMinutes?: number;
  /** Flights per transaction: bounds how long one batch holds the pipeline lock. */
  readonly batchSize: number;
  readonly msgTopicTarget: string;
  readonly schdTarget: string;
}

export const DEFAULT_HISTORY_SWEEP_OPTIONS: HistorySweepOptions = {
  retentionDays: 7,
  airportUtcOffsetMinutes: 480,
  dayStartOffsetMinutes: 0,
  batchSize: 200,
  msgTopicTarget: Target.MSG,
  schdTarget: Target.SCHD,
};

/** What one batch did. */
export interface HistorySweepBatch {
  readonly cutoffDay: string;
  /** Flights moved to history by this batch. */
  readonly retired: number;
  /** Of them, the ones that got a tombstone (they were not deleted yet). */
  readonly tombstones: number;
  /** The batch was full: more flights may be due. */
  readonly more: boolean;
}

/**
 * The daily history sweep (SPEC §2.7, seed 000 §6.2). One `step` is one bounded batch in **one**
 * maintenance transaction: load the oldest flights before the cutoff, decide with
 * `decideRetirement` (pure), then write their history rows, remove them from the live tables and
 * append a TOMBSTONE pair (`KAFKA:msg` + `KAFKA:schd`, like an FDEL's) for each one not already
 * deleted. History and tombstone therefore commit together or not at all (the seed's gap), the
 * batch holds the pipeline lock so it never interleaves with a run, and a retired flight is gone
 * from the live tables, so a later batch can neither retire it again nor tombstone it twice.
 *
 * A retirement tombstone has version + 1 and names the flight's `lastMsgId` as its source (no
 * message caused it).
 */
export class HistorySweeper {
  readonly #options: HistorySweepOptions;

  constructor(
    private readonly deps: { readonly store: MaintenanceStore; readonly clock: Clock; readonly logger: Logger; readonly fence?: number },
    options: Partial<HistorySweepOptions> = {},
  ) {
    this.#options = { ...DEFAULT_HISTORY_SWEEP_OPTIONS, ...options };
    if (!Number.isInteger(this.#options.batchSize) || this.#options.batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${this.#options.batchSize}`);
    }
  }

  /** The first operation day that stays live at `now`. */
  cutoffDay(now: number): string {
    return retirementCutoffDay(now, this.#options);
  }

  /** One batch. Throws what the store throws (nothing is written then). */
  async step(): Promise<HistorySweepBatch> {
    const { store, clock, logger, fence } = this.deps;
    const o = this.#options;
    const now = clock.now();
    const batch = await store.transaction(
      async (tx) => {
        const cutoffDay = retirementCutoffDay(now, o);
        const flights = await tx.retirableFlights(cutoffDay, o.batchSize);
        const decision = decideRetirement(flights, now, o);
        const tombstones = new Map(decision.tombstones.map((t) => [t.flid, t]));
        const retired: RetiredFlight[] = decision.retired.map((f) => ({
          flid: f.flid,
          operationDay: f.operationDay!,
          finalState: flightToPayload(f),
          tombstoneVersion: tombstones.get(f.flid)?.stateVersion ?? null,
          retiredAt: now,
        }));
        const events = decision.tombstones.flatMap((t) => flightEvents(t, t.lastMsgId, o));
        if (retired.length > 0) await tx.retireFlights(retired, events);
        return { cutoffDay, retired: retired.length, tombstones: tombstones.size, more: flights.length >= o.batchSize };
      },
      fence === undefined ? {} : { fence },
    );
    if (batch.retired > 0) logger.info("history sweep batch", { ...batch });
    return batch;
  }
}
