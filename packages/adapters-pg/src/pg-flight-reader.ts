import { assertRecentLimit, assertSearchQuery, MAX_FLIGHT_LIST_LIMIT, type FlightListQuery, type FlightReader, type FlightSearchQuery, type FlightState } from "@msgx/core";
import type { Kysely } from "kysely";
import { pgCall } from "./pg-error-map.js";
import type { Db } from "./queries/db.js";
import { listFlights, readFlight, recentFlights, searchFlights } from "./queries/flights.js";
import type { MsgxDatabase } from "./rows/tables.js";

const DECIMAL_FLID = /^\d{1,18}$/;

/** The RangeError the port promises (core's `assertListQuery` is not exported; same rules). */
function assertListQuery({ limit, afterFlid }: FlightListQuery): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FLIGHT_LIST_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_FLIGHT_LIST_LIMIT}, got ${limit}`);
  }
  if (afterFlid !== undefined && !DECIMAL_FLID.test(afterFlid)) {
    throw new RangeError(`afterFlid must be a decimal id, got ${JSON.stringify(afterFlid)}`);
  }
}

/**
 * `FlightReader` on PostgreSQL/PGlite. Each call is one statement over `flight_schd` and the
 * collection tables, so it sees one committed snapshot (each flight whole) and takes no row
 * locks: readers never wait for the pump, nor the pump for them.
 */
export class PgFlightReader implements FlightReader {
  readonly #db: Db;

  constructor(db: Kysely<MsgxDatabase>) {
    this.#db = db;
  }

  async get(flid: string): Promise<FlightState | undefined> {
    if (!DECIMAL_FLID.test(flid)) return undefined;
    return pgCall("flight get", () => readFlight(this.#db, flid));
  }

  async list(query: FlightListQuery): Promise<readonly FlightState[]> {
    assertListQuery(query);
    return pgCall("flight list", () => listFlights(this.#db, query));
  }

  async recent(limit: number): Promise<readonly FlightState[]> {
    assertRecentLimit(limit);
    return pgCall("flight recent", () => recentFlights(this.#db, limit));
  }

  async search(query: FlightSearchQuery): Promise<readonly FlightState[]> {
    assertSearchQuery(query);
    return pgCall("flight search", () => searchFlights(this.#db, query));
  }
}
