import type { WireValue } from "../model/flight-record.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";
import { canonicalCollections, canonicalScalars } from "./flight-content.js";
import type { FlightState } from "../model/flight-state.js";

/**
 * The version of {@link FlightPayload}; bumped only for a change old consumers cannot ignore.
 * 2: an absent field or collection means "not in the flight's state" (a SCHD record that leaves
 * it out unsets it), no longer "never stated"; DELY rows are keyed by their code; CHOT rows are
 * chocks events (`CHTM`, `CHID`, `CHST`). See docs/events.md.
 */
export const FLIGHT_PAYLOAD_SCHEMA_VERSION = 2;

/** One row of a resource collection in a payload. */
export interface FlightPayloadRow {
  /**
   * The row's key: its sequence attribute (`GTNO`, `RTNO`, …), its code (`DELY` `@CODE`, `SRVT`
   * `SRTC`, `VIPF` `VPCD`) or, for `VIPT`, `<VPCD>/<VSCD>`.
   */
  readonly key: string;
  /** Child elements by name, attributes as `@NAME`, the element text as `#text`. */
  readonly values: Readonly<Record<string, WireValue>>;
}

/**
 * The JSON value of a flight event (schema version 2, `docs/events.md`). The full state of the
 * flight after the change, never a diff, so a consumer needs no history to use one record.
 * In `fields`, `collections` and row `values`: a name that is absent has no value in the state
 * (never stated, or left out by the flight's last SCHD record); `null` means it was stated empty
 * (cleared); `[]` means the collection was stated empty.
 */
export interface FlightPayload extends Pick<FlightState, "flid" | "operationDay" | "stateVersion" | "deleted" | "lastMsgId" | "lastSrcDttm"> {
  readonly schemaVersion: typeof FLIGHT_PAYLOAD_SCHEMA_VERSION;
  readonly ffid: string | null;
  /** The state's `scalars`. */
  readonly fields: Readonly<Partial<Record<ScalarName, WireValue>>>;
  readonly collections: Readonly<Partial<Record<CollectionName, readonly FlightPayloadRow[]>>>;
}

/**
 * Maps a flight state to its event payload: keys in schema order and rows sorted by key, so the
 * same state always serializes to the same bytes.
 */
export function flightToPayload(state: FlightState): FlightPayload {
  return {
    schemaVersion: FLIGHT_PAYLOAD_SCHEMA_VERSION,
    flid: state.flid,
    ffid: state.ffid,
    operationDay: state.operationDay,
    stateVersion: state.stateVersion,
    deleted: state.deleted,
    lastMsgId: state.lastMsgId,
    lastSrcDttm: state.lastSrcDttm,
    fields: canonicalScalars(state.scalars),
    collections: canonicalCollections(state.collections),
  };
}

/** The inverse of {@link flightToPayload}, for consumers that rebuild flights from events. */
export function flightFromPayload(payload: FlightPayload): FlightState {
  return {
    flid: payload.flid,
    ffid: payload.ffid,
    operationDay: payload.operationDay,
    stateVersion: payload.stateVersion,
    lastMsgId: payload.lastMsgId,
    lastSrcDttm: payload.lastSrcDttm,
    deleted: payload.deleted,
    scalars: canonicalScalars(payload.fields),
    collections: canonicalCollections(payload.collections),
  };
}
