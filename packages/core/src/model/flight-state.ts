import type { CollectionRow, WireValue } from "./flight-record.js";
import type { CollectionName, ScalarName } from "./flight-schema.js";

/**
 * The stored state of one flight: a `FLIGHT_SCHD` row plus its collections (`COLLECTIONS`).
 * No value and cleared stay apart as on the wire: a scalar with no value (never stated, or unset
 * by the last SCHD record) is absent; one stated empty is `null`. Likewise a collection is absent
 * or, stated empty, `[]`.
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
  /** Set by FDEL or SCHD/DEL; the flight stays (as a tombstone) until the history sweep retires it. */
  readonly deleted: boolean;
  readonly scalars: Readonly<Partial<Record<ScalarName, WireValue>>>;
  readonly collections: Readonly<Partial<Record<CollectionName, readonly CollectionRow[]>>>;
}
