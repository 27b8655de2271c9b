import type { FlightRecord, WireValue } from "./flight-record.js";
import type { ValueKind } from "./flight-schema.js";

/**
 * An element of a FLOP block that sets fields on the PSDT rows of one stand instead of being
 * stored itself (WIRE.md "FLOP subtypes", stand row). `stand` is the child naming the stand (it
 * matches a PSDT row's `PSST`); `time` the child whose absence clears every field the element
 * sets; `fields` the PSDT row fields it sets (same names on the wire and in the row).
 */
export interface StandRowSpec {
  readonly stand: string;
  readonly time: string;
  readonly fields: Readonly<Record<string, ValueKind>>;
  readonly attributes?: Readonly<Record<string, ValueKind>>;
}

/** `PSHT@PSHN{PSTM, PSID, PUST}` (push time and indicator) and `TIPT*{TRTM, TRST}` (tractor time). */
export const STAND_ROW_ELEMENTS = {
  PSHT: { stand: "PUST", time: "PSTM", fields: { PSTM: "time", PSID: "text" }, attributes: { PSHN: "text" } },
  TIPT: { stand: "TRST", time: "TRTM", fields: { TRTM: "time" } },
} as const satisfies Record<string, StandRowSpec>;

export type StandRowElement = keyof typeof STAND_ROW_ELEMENTS;

/** The PSDT row fields that only stand-row elements set (a later PSDT keeps them, see the FLOP rules). */
export const STAND_ROW_FIELDS: readonly string[] = Object.values(STAND_ROW_ELEMENTS).flatMap((s: StandRowSpec) => Object.keys(s.fields));

/**
 * One stand-row element as sent: its children by name (the stand child included) and attributes
 * as `@NAME`; absent is left out, empty is `null`, as everywhere on the wire.
 */
export interface StandRowStatement {
  readonly values: Readonly<Record<string, WireValue>>;
}

/**
 * One `FLOP` block: the flight record it states, plus the stand-row elements it carries (only
 * when it carries any), in wire order.
 */
export interface FlopBlock extends FlightRecord {
  readonly standRows?: Readonly<Partial<Record<StandRowElement, readonly StandRowStatement[]>>>;
}
