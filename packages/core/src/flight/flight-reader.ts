import type { FlightState } from "../model/flight-state.js";

/** The most flights one `list` call returns. */
export const MAX_FLIGHT_LIST_LIMIT = 1000;

/** Which flights to list. */
export interface FlightListQuery {
  /** Only flights of this operation day (`yyyyMMdd`). */
  readonly operationDay?: string;
  /** Keyset paging: only flights whose FLID comes after this one (FLID order, see `list`). */
  readonly afterFlid?: string;
  /** At most this many flights, 1 to {@link MAX_FLIGHT_LIST_LIMIT}. */
  readonly limit: number;
  /** Include deleted flights (tombstones not yet retired). Default true, as `get` does. */
  readonly includeDeleted?: boolean;
}

/** The most flights one `search` call returns. */
export const MAX_FLIGHT_SEARCH_LIMIT = 100;

/** What an operator typed to find a flight: a FLID, or the start of a flight number. */
export interface FlightSearchQuery {
  /** 1–16 letters and digits: a FLID (exact), or a flight number's first characters, any case (`ca12` finds `CA1234`). */
  readonly text: string;
  /** At most this many flights, 1 to {@link MAX_FLIGHT_SEARCH_LIMIT}. */
  readonly limit: number;
}

/** What `search` accepts as its text. */
export const FLIGHT_SEARCH_TEXT = /^[A-Za-z0-9]{1,16}$/;

/**
 * Read access to the live flight state, for other airport services (the public read API).
 *
 * Every implementation guarantees:
 * - Reads see committed state only, and each flight whole: its fields and collections are those
 *   of one `stateVersion`, never a mix of two.
 * - A flight comes back exactly as stored, with unknown and cleared kept apart (an absent field
 *   or collection was never stated; `null` or `[]` was cleared) and rows in key order.
 * - Deleted flights are flights with `deleted: true` until the history sweep retires them;
 *   retired or never-stored flights are not found.
 * - Neither method writes, locks out the pump, or changes what it returns by being called.
 */
export interface FlightReader {
  /** The flight with this FLID, or undefined when none is stored (also for a FLID that is not a decimal id). */
  get(flid: string): Promise<FlightState | undefined>;
  /**
   * Flights matching `query`, ascending by FLID as a number (FLIDs are decimal ids: `99` comes
   * before `100`), at most `query.limit`. Paging with `afterFlid` set to the last FLID of the
   * previous page visits every flight that exists throughout, once.
   *
   * @throws RangeError when `limit` is not an integer from 1 to {@link MAX_FLIGHT_LIST_LIMIT}, or
   *   `afterFlid` is not a decimal id (1–18 digits).
   */
  list(query: FlightListQuery): Promise<readonly FlightState[]>;
  /**
   * Flights an operator may mean by `query.text`, at most `query.limit`: first the flight whose
   * FLID is the text (when stored), then every other flight whose FLNO starts with the text, case
   * ignored, ascending by upper-case FLNO (code-point order), then SODT, then FLID as text.
   * Deleted flights are found too (as `get` finds them). Reads an index range of the matching
   * flight numbers only, never the whole table.
   *
   * @throws RangeError when the text is not 1–16 letters and digits or `limit` is not an integer
   *   from 1 to {@link MAX_FLIGHT_SEARCH_LIMIT}.
   */
  search(query: FlightSearchQuery): Promise<readonly FlightState[]>;
  /**
   * The flights changed last, at most `limit`: descending by the message that made their current
   * version (`lastMsgId`), flights made by the same message by FLID as text (code-point order).
   * Deleted flights are included (as `get` finds them). Reads an index in that order: the limit
   * ends the scan.
   *
   * @throws RangeError when `limit` is not an integer from 1 to {@link MAX_FLIGHT_SEARCH_LIMIT}.
   */
  recent(limit: number): Promise<readonly FlightState[]>;
}

/** Orders FLIDs (decimal ids) by value, ties (leading zeros) by text. */
export function compareFlids(a: string, b: string): number {
  const d = BigInt(a) - BigInt(b);
  if (d !== 0n) return d < 0n ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A FLID as the codec accepts it: 1–18 decimal digits. */
export const FLID_PATTERN = /^\d{1,18}$/;

/** Throws the RangeError `list` promises for a bad query. */
export function assertListQuery(query: FlightListQuery): void {
  const { limit, afterFlid } = query;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FLIGHT_LIST_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_FLIGHT_LIST_LIMIT}, got ${limit}`);
  }
  if (afterFlid !== undefined && !FLID_PATTERN.test(afterFlid)) {
    throw new RangeError(`afterFlid must be a decimal id, got ${JSON.stringify(afterFlid)}`);
  }
}

/** Throws the RangeError `recent` promises for a bad limit. */
export function assertRecentLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FLIGHT_SEARCH_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_FLIGHT_SEARCH_LIMIT}, got ${limit}`);
  }
}

/** Throws the RangeError `search` promises for a bad query. */
export function assertSearchQuery({ text, limit }: FlightSearchQuery): void {
  if (!FLIGHT_SEARCH_TEXT.test(text)) throw new RangeError(`search text must be 1 to 16 letters and digits, got ${JSON.stringify(text)}`);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FLIGHT_SEARCH_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_FLIGHT_SEARCH_LIMIT}, got ${limit}`);
  }
}
