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

/**
 * The scalar, collection and row objects the functions below returned, and for rows the collection
 * they were made canonical for. Flight content is immutable, so an object handed back again is
 * canonical already and returned as it is: a flight passes through these functions several times
 * per message (merged, compared with the stored one, turned into its payload), and its unchanged
 * collections keep their objects from one version to the next.
 */
const canonicalObjects = new WeakMap<object, CollectionName | true>();

function remember<T extends object>(value: T, tag: CollectionName | true): T {
  canonicalObjects.set(value, tag);
  return value;
}

/** Rows sorted by key, each row's values in schema order (unknown names last, sorted). */
export function canonicalRows(name: CollectionName, rows: readonly CollectionRow[]): readonly CollectionRow[] {
  if (canonicalObjects.get(rows) === name) return rows;
  const order = valueOrder(COLLECTIONS[name]);
  const sorted = [...rows]
    .sort((a, b) => compareRowKeys(a.key, b.key))
    .map((row) => {
      const names = [...order.filter((n) => Object.hasOwn(row.values, n)), ...Object.keys(row.values).filter((n) => !order.includes(n)).sort()];
      const values: Record<string, WireValue> = {};
      for (const n of names) values[n] = row.values[n] ?? null;
      return { key: row.key, values };
    });
  return remember(sorted, name);
}

/** Scalars in schema order; absent stays absent, `null` stays `null`. */
export function canonicalScalars(scalars: Scalars): Scalars {
  if (canonicalObjects.get(scalars) === true) return scalars;
  const out: Partial<Record<ScalarName, WireValue>> = {};
  for (const name of SCALAR_NAMES) {
    const v = scalars[name];
    if (v !== undefined) out[name] = v;
  }
  return remember(out, true);
}

/** Collections in schema order, each canonical; a never-stated collection stays absent. */
export function canonicalCollections(collections: Collections): Collections {
  if (canonicalObjects.get(collections) === true) return collections;
  const out: Partial<Record<CollectionName, readonly CollectionRow[]>> = {};
  for (const name of COLLECTION_NAMES) {
    const rows = collections[name];
    if (rows !== undefined) out[name] = canonicalRows(name, rows);
  }
  return remember(out, true);
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
 * of "the state really changed" that decides whether a version is spent: the two canonical forms
 * are equal (as their JSON texts would be).
 */
export function sameFlightContent(a: FlightContent, b: FlightContent): boolean {
  if (a.ffid !== b.ffid || a.operationDay !== b.operationDay || a.deleted !== b.deleted) return false;
  const [sa, sb] = [canonicalScalars(a.scalars), canonicalScalars(b.scalars)];
  if (sa !== sb && SCALAR_NAMES.some((name) => sa[name] !== sb[name])) return false;
  const [ca, cb] = [canonicalCollections(a.collections), canonicalCollections(b.collections)];
  return ca === cb || COLLECTION_NAMES.every((name) => sameRows(ca[name], cb[name]));
}

/** Two canonical row lists (or absences) alike: the same keys in the same order, each row's values the same in the same order. */
function sameRows(a: readonly CollectionRow[] | undefined, b: readonly CollectionRow[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((row, i) => row.key === b[i]!.key && JSON.stringify(row.values) === JSON.stringify(b[i]!.values));
}
