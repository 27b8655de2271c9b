import type { CollectionName, ScalarName } from "./flight-schema.js";

/**
 * One value as it came off the wire:
 * - property absent (`undefined`): the element was absent; the value is unknown/unchanged;
 * - `null`: the element was present and empty; the value is cleared;
 * - a string: the normalized value (see `ValueKind` in flight-schema).
 */
export type WireValue = string | null;

/**
 * One row of a resource collection. `key` is the sequence attribute (or the 1-based position);
 * `values` holds child elements by name, attributes as `@NAME` and the element text as `#text`.
 * A child that was absent is not in `values`; an empty child is `null`.
 */
export interface CollectionRow {
  readonly key: string;
  readonly values: Readonly<Record<string, WireValue>>;
}

/**
 * A flight as one message states it (a SCHD `FLTR` or a `FLOP` block).
 * A collection that is absent is unchanged; `[]` (one empty element) clears it; otherwise the rows
 * replace the whole set.
 */
export interface FlightRecord {
  /** Upstream surrogate id, decimal digits. */
  readonly flid: string;
  /** Natural key text, kept as a cross-check on FLID reuse. */
  readonly ffid?: WireValue;
  readonly scalars: Readonly<Partial<Record<ScalarName, WireValue>>>;
  readonly collections: Readonly<Partial<Record<CollectionName, readonly CollectionRow[]>>>;
}
