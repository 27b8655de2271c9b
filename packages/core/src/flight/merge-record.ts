import type { CollectionRow, FlightRecord, WireValue } from "../model/flight-record.js";
import { COLLECTION_NAMES, SCALAR_NAMES } from "../model/flight-schema.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";
import { canonicalContent, type FlightContent } from "./flight-content.js";
import type { FlopGroup } from "./flop-matrix.js";

/** The content of a flight never stored (or being re-created after a delete). */
export const EMPTY_CONTENT: FlightContent = { ffid: null, operationDay: null, deleted: false, scalars: {}, collections: {} };

/** Every element a SCHD record may set. */
const ALL: FlopGroup = { scalars: SCALAR_NAMES, collections: COLLECTION_NAMES };

/**
 * Merges what one record states into a flight's content, limited to `group` (default: every
 * field). The wire's three states are kept apart: an absent scalar or collection leaves the
 * stored value (it is unknown, not cleared); `null` stores `null` (cleared); a collection given
 * replaces the whole set (`[]` clears it). `ffid`, `operationDay` and `deleted` are left to the
 * caller, which owns their rules. The result is canonical.
 */
export function mergeRecord(content: FlightContent, record: FlightRecord, group: FlopGroup = ALL): FlightContent {
  const scalars: Partial<Record<ScalarName, WireValue>> = { ...content.scalars };
  for (const name of group.scalars) {
    const v = record.scalars[name];
    if (v !== undefined) scalars[name] = v;
  }
  const collections: Partial<Record<CollectionName, readonly CollectionRow[]>> = { ...content.collections };
  for (const name of group.collections) {
    const rows = record.collections[name];
    if (rows !== undefined) collections[name] = rows;
  }
  return canonicalContent({ ...content, scalars, collections });
}
