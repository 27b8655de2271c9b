/**
 * Conversions between driver values and the model. node-postgres returns `bigint` as a string and
 * `timestamptz` as a `Date`; PGlite returns numbers and Dates. Both go through these.
 */

/** A bigint/integer column as a JS number (ids and versions stay below 2^53). */
export const toNumber = (v: unknown): number => (typeof v === "number" ? v : Number(v as string | bigint));

/** A timestamptz column as epoch milliseconds. */
export function toMs(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === "number") return v;
  const parsed = Date.parse(String(v));
  if (Number.isNaN(parsed)) throw new TypeError(`not a timestamp: ${String(v)}`);
  return parsed;
}

export const toMsOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : toMs(v));

/** A jsonb column: the drivers parse it already; a string is parsed here for safety. */
export const fromJson = <T>(v: unknown): T => (typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

/** One JSON parameter for a set-based statement (`jsonb_to_recordset`), whatever the row count. */
export const jsonParam = (rows: unknown): string => JSON.stringify(rows);
