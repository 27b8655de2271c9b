import type { FlightState, MaintenanceTx, OutboxEventDraft, RetiredFlight } from "@msgx/core";
import { pgCall } from "../pg-error-map.js";
import type { Db } from "../queries/db.js";
import { retirableFlights, retireFlights } from "../queries/flights.js";
import { insertEvents } from "../queries/msg-event.js";

/** One maintenance transaction on one connection (under the pipeline lock; see `pipelineLocked`). */
export class PgMaintenanceTx implements MaintenanceTx {
  readonly #db: Db;
  readonly #now: number;

  constructor(db: Db, now: number) {
    this.#db = db;
    this.#now = now;
  }

  retirableFlights(cutoffDay: string, limit: number): Promise<readonly FlightState[]> {
    return pgCall("retirableFlights", () => retirableFlights(this.#db, cutoffDay, limit));
  }

  /** Two statements: history + removal (one), then the outbox rows in the given order. */
  retireFlights(flights: readonly RetiredFlight[], events: readonly OutboxEventDraft[]): Promise<void> {
    return pgCall("retireFlights", async () => {
      await retireFlights(this.#db, flights);
      await insertEvents(this.#db, events, this.#now);
    });
  }
}
