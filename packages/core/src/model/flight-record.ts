import type { CollectionName, ScalarName } from "./flight-schema.js";

/**
 * One value as it came off the wire:
 * - property absent (`undefined`): the element was absent (what that means is the processor's
 *   rule: a SCHD record unsets the field, a FLOP follows its subtype);
 * - `null`: the element was present and empty; the value is cleared;
 * - a string: the normalized value (see `ValueKind` in flight-schema).
 */
export type WireValue = string | null;

/**
 * One row of a resource collection. `key` is the row's key attribute or key element as the
 * collection's spec names it (`RTNO`, DELY's `@CODE`, SRVT's `SRTC`), `<parent key>/<own key>`
 * for a nested collection (VIPT); `values` holds child elements by name, attributes as `@NAME`
 * and the element text as `#text`. A child that was absent is not in `values`; an empty child is
 * `null`.
 */
export interface CollectionRow {
  readonly key: string;
  readonly values: Readonly<Record<string, WireValue>>;
}

/**
 * A flight as one message states it (a SCHD `FLTR` or a `FLOP` block). A collection that is
 * absent was not stated; `[]` is one empty element (a clear); otherwise its rows as sent. Nested
 * collections (VIPT) are stated whenever their parent is.
 */
export interface FlightRecord {
  /** Upstream surrogate id, decimal digits. */
  readonly flid: string;
  /** Natural key text, kept as a cross-check on FLID reuse. */
  readonly ffid?: WireValue;
  readonly scalars: Readonly<Partial<Record<ScalarName, WireValue>>>;
  readonly collections: Readonly<Partial<Record<CollectionName, readonly CollectionRow[]>>>;
}
