import { assertListQuery, compareFlids, type FlightListQuery, type FlightReader } from "./flight-reader.js";
import type { FlightState } from "../model/flight-state.js";

/** What the reader needs of the in-memory store: its flights table (`InMemoryPipelineStore`). */
export interface FlightTableSource {
  readonly tables: { readonly flights: ReadonlyMap<string, FlightState> };
}

/**
 * The in-memory {@link FlightReader}: reads `InMemoryPipelineStore.tables.flights`, which only
 * ever holds committed state, so every read sees whole flights of committed runs.
 */
export class InMemoryFlightReader implements FlightReader {
  constructor(private readonly source: FlightTableSource) {}

  async get(flid: string): Promise<FlightState | undefined> {
    return this.source.tables.flights.get(flid);
  }

  async list(query: FlightListQuery): Promise<readonly FlightState[]> {
    assertListQuery(query);
    const includeDeleted = query.includeDeleted ?? true;
    return [...this.source.tables.flights.values()]
      .filter(
        (f) =>
          (query.operationDay === undefined || f.operationDay === query.operationDay) &&
          (query.afterFlid === undefined || compareFlids(f.flid, query.afterFlid) > 0) &&
          (includeDeleted || !f.deleted),
      )
      .sort((a, b) => compareFlids(a.flid, b.flid))
      .slice(0, query.limit);
  }
}
