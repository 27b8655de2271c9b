import type { CollectionRow, FlightRecord, WireValue } from "../model/flight-record.js";
import { COLLECTION_NAMES, SCALAR_NAMES } from "../model/flight-schema.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";
import { canonicalContent, type FlightContent } from "./flight-content.js";

/** The content of a flight never stored (or being re-created after a delete). */
export const EMPTY_CONTENT: FlightContent = { ffid: null, operationDay: null, deleted: false, scalars: {}, collections: {} };

/** The collections a SCHD record keeps when it leaves them out (WIRE.md "Empty vs absent": ERUT). */
export const SCHD_KEEPS_WHEN_ABSENT: readonly CollectionName[] = ["ERUT"];

/**
 * A flight's content after one SCHD record (snapshot, ADFT): the record is the flight's full state
 * (WIRE.md "Empty vs absent"; upstream rebuilds the row from it).
 * - A scalar the record states is set (`null` when empty); one it leaves out is unset: absent
 *   from the content, not the old value.
 * - A collection the record states holds its rows (`[]` for an empty element); one it leaves out
 *   is unset (no rows), except those in {@link SCHD_KEEPS_WHEN_ABSENT}, which keep the stored rows.
 *   Nested collections follow their parent: the codec states VIPT whenever VIPF is stated.
 * `ffid`, `operationDay` and `deleted` are the base's, left to the caller. The result is canonical.
 */
export function schdRecordContent(base: FlightContent, record: FlightRecord): FlightContent {
  const scalars: Partial<Record<ScalarName, WireValue>> = {};
  for (const name of SCALAR_NAMES) {
    const v = record.scalars[name];
    if (v !== undefined) scalars[name] = v;
  }
  const collections: Partial<Record<CollectionName, readonly CollectionRow[]>> = {};
  for (const name of COLLECTION_NAMES) {
    const rows = record.collections[name] ?? (SCHD_KEEPS_WHEN_ABSENT.includes(name) ? base.collections[name] : undefined);
    if (rows !== undefined) collections[name] = rows;
  }
  return canonicalContent({ ...base, scalars, collections });
}
