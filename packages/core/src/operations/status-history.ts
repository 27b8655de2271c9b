import type { PipelineStatus } from "../processing/status-reader.js";
import { MAX_THROUGHPUT_MINUTES, MINUTE_MS, type MinuteThroughput } from "./throughput-reader.js";

/** The gauges of one minute: what the status said when this runner sampled it. */
export interface StatusGauges {
  /** PENDING + FAILED records. */
  readonly backlog: number;
  /** Age of the head (0 when nothing is unfinished). */
  readonly headAgeMs: number;
  /** Age of the oldest pending event of any target (0 when none is pending). */
  readonly deliveryLagMs: number;
  /** DEAD records. */
  readonly dead: number;
  readonly backfillDebt: number;
}

/** One minute of `GET /admin/status/history`: the stored counts, and this runner's gauges (null where it took no sample). */
export type StatusHistorySample = MinuteThroughput & { readonly [K in keyof StatusGauges]: StatusGauges[K] | null };

/** The gauges of a status read at `now`. */
export function statusGauges(status: PipelineStatus, now: number): StatusGauges {
  const oldest = Object.values(status.delivery).reduce<number | null>((min, d) => (d.oldestPendingAt === null ? min : min === null ? d.oldestPendingAt : Math.min(min, d.oldestPendingAt)), null);
  return {
    backlog: status.byStatus.PENDING + status.byStatus.FAILED,
    headAgeMs: status.head === null ? 0 : Math.max(0, now - status.head.receivedAt),
    deliveryLagMs: oldest === null ? 0 : Math.max(0, now - oldest),
    dead: status.deadLetters,
    backfillDebt: status.backfillDebt,
  };
}

/**
 * The gauges a runner sampled, one per minute, for the last `capacity` minutes (default a day).
 * Gauges cannot be rebuilt from the database (a backlog is a moment), so each runner keeps its
 * own; a runner that just started, or took over, has none for the minutes before.
 */
export class StatusSamples {
  readonly #capacity: number;
  readonly #byMinute = new Map<number, StatusGauges>();

  constructor(capacity = MAX_THROUGHPUT_MINUTES) {
    this.#capacity = capacity;
  }

  /** Keeps `gauges` as the sample of the minute holding `at` (a later sample of the same minute replaces it). */
  record(at: number, gauges: StatusGauges): void {
    const minute = Math.floor(at / MINUTE_MS) * MINUTE_MS;
    this.#byMinute.delete(minute);
    this.#byMinute.set(minute, gauges);
    // Insertion order is minute order while the clock moves forward; drop the oldest past capacity.
    for (const key of this.#byMinute.keys()) {
      if (this.#byMinute.size <= this.#capacity && key > minute - this.#capacity * MINUTE_MS) break;
      this.#byMinute.delete(key);
    }
  }

  /** The sample of the minute starting at `minute`, if this runner took one. */
  at(minute: number): StatusGauges | undefined {
    return this.#byMinute.get(minute);
  }

  get size(): number {
    return this.#byMinute.size;
  }
}

/** The history: each minute's counts with the gauges sampled in it (null where none was). */
export function statusHistory(minutes: readonly MinuteThroughput[], samples: StatusSamples): StatusHistorySample[] {
  return minutes.map((m) => {
    const g = samples.at(m.at);
    return { ...m, backlog: g?.backlog ?? null, headAgeMs: g?.headAgeMs ?? null, deliveryLagMs: g?.deliveryLagMs ?? null, dead: g?.dead ?? null, backfillDebt: g?.backfillDebt ?? null };
  });
}
