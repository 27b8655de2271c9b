import { assertListQuery, assertRecentLimit, assertSearchQuery, compareFlids, type FlightListQuery, type FlightReader, type FlightSearchQuery } from "./flight-reader.js";
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

  async recent(limit: number): Promise<readonly FlightState[]> {
    assertRecentLimit(limit);
    return [...this.source.tables.flights.values()].sort((a, b) => b.lastMsgId - a.lastMsgId || codePoints(a.flid, b.flid)).slice(0, limit);
  }

  async search(query: FlightSearchQuery): Promise<readonly FlightState[]> {
    assertSearchQuery(query);
    const flights = this.source.tables.flights;
    const exact = flights.get(query.text);
    const prefix = query.text.toUpperCase();
    const flno = (f: FlightState) => (typeof f.scalars.FLNO === "string" ? f.scalars.FLNO.toUpperCase() : null);
    // A flight without SODT sorts after every one with (PostgreSQL's NULLS LAST).
    const sodt = (f: FlightState) => (typeof f.scalars.SODT === "string" ? f.scalars.SODT : "\u{10FFFF}");
    const byNumber = [...flights.values()]
      .filter((f) => f !== exact && flno(f)?.startsWith(prefix) === true)
      .sort((a, b) => codePoints(flno(a)!, flno(b)!) || codePoints(sodt(a), sodt(b)) || codePoints(a.flid, b.flid));
    return [...(exact ? [exact] : []), ...byNumber].slice(0, query.limit);
  }
}

const codePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
