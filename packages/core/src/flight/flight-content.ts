import type { CollectionRow, WireValue } from "../model/flight-record.js";
import { COLLECTION_NAMES, COLLECTIONS, SCALAR_NAMES } from "../model/flight-schema.js";
import type { CollectionName, CollectionSpec, ScalarName } from "../model/flight-schema.js";
import type { FlightState } from "../model/flight-state.js";

/** What a message can change on a flight: everything but the version bookkeeping. */
export type FlightContent = Pick<FlightState, "ffid" | "operationDay" | "deleted" | "scalars" | "collections">;

type Scalars = FlightState["scalars"];
type Collections = FlightState["collections"];

const DIGITS = /^\d+$/;

/**
 * Orders collection keys as the tables do: numeric keys by value (so `2` < `10`), others after
 * them by code unit. Sequence attributes are numbers on the wire, but nothing forces it.
 */
export function compareRowKeys(a: string, b: string): number {
  const an = DIGITS.test(a);
  const bn = DIGITS.test(b);
  if (an && bn) {
    const d = BigInt(a) - BigInt(b);
    if (d !== 0n) return d < 0n ? -1 : 1;
  } else if (an !== bn) {
    return an ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function valueOrder(spec: CollectionSpec): string[] {
  return [
    ...Object.keys(spec.fields),
    ...Object.keys(spec.attributes ?? {}).map((a) => `@${a}`),
    ...(spec.text === undefined ? [] : ["#text"]),
  ];
}

/** Rows sorted by key, each row's values in schema order (unknown names last, sorted). */
export function canonicalRows(name: CollectionName, rows: readonly CollectionRow[]): CollectionRow[] {
  const order = valueOrder(COLLECTIONS[name]);
  return [...rows]
    .sort((a, b) => compareRowKeys(a.key, b.key))
    .map((row) => {
      const names = [...order.filter((n) => Object.hasOwn(row.values, n)), ...Object.keys(row.values).filter((n) => !order.includes(n)).sort()];
      const values: Record<string, WireValue> = {};
      for (const n of names) values[n] = row.values[n] ?? null;
      return { key: row.key, values };
    });
}

/** Scalars in schema order; absent stays absent, `null` stays `null`. */
export function canonicalScalars(scalars: Scalars): Scalars {
  const out: Partial<Record<ScalarName, WireValue>> = {};
  for (const name of SCALAR_NAMES) {
    const v = scalars[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** Collections in schema order, each canonical; a never-stated collection stays absent. */
export function canonicalCollections(collections: Collections): Collections {
  const out: Partial<Record<CollectionName, readonly CollectionRow[]>> = {};
  for (const name of COLLECTION_NAMES) {
    const rows = collections[name];
    if (rows !== undefined) out[name] = canonicalRows(name, rows);
  }
  return out;
}

/** The content in canonical form: the form processors store, payloads show and comparisons use. */
export function canonicalContent(content: FlightContent): FlightContent {
  return {
    ffid: content.ffid,
    operationDay: content.operationDay,
    deleted: content.deleted,
    scalars: canonicalScalars(content.scalars),
    collections: canonicalCollections(content.collections),
  };
}

/**
 * Whether two flights hold the same content, ignoring the version bookkeeping
 * (`stateVersion`, `lastMsgId`, `lastSrcDttm`) and the order of keys and rows. This is the test
 * of "the state really changed" that decides whether a version is spent.
 */
export function sameFlightContent(a: FlightContent, b: FlightContent): boolean {
  return JSON.stringify(canonicalContent(a)) === JSON.stringify(canonicalContent(b));
}
