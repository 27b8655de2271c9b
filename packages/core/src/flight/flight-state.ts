import type { CollectionRow, WireValue } from "../model/flight-record.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";

/**
 * The stored state of one flight: a `FLIGHT_SCHD` row plus its nine collections.
 * Unknown and cleared stay apart exactly as on the wire: a scalar that was never stated is absent;
 * one that was cleared is `null`. A collection never stated is absent; a cleared one is `[]`.
 */
export interface FlightState {
  readonly flid: string;
  readonly ffid: WireValue;
  /** `yyyyMMdd`, the local date of SODT; immutable once set. */
  readonly operationDay: string | null;
  /** Rises by one on every real change, never otherwise. */
  readonly stateVersion: number;
  /** MSG_ID of the last message that changed this flight. */
  readonly lastMsgId: number;
  /** META DTTM (`yyyyMMddHHmmss`) of the last message that changed this flight. */
  readonly lastSrcDttm: string;
  /** Set by FDEL; the flight stays (as a tombstone) until the history sweep retires it. */
  readonly deleted: boolean;
  readonly scalars: Readonly<Partial<Record<ScalarName, WireValue>>>;
  readonly collections: Readonly<Partial<Record<CollectionName, readonly CollectionRow[]>>>;
}
