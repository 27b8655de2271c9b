import { compareRowKeys } from "./flight-content.js";

/**
 * The comparison of two systems' flight state, as `GET /all/flights` serves it (docs/operations.md
 * "Going live: shadow run and comparison"). Pure: the two lists are whole, however they were
 * paged, so the result depends only on which flights each side holds, never on page order.
 *
 * Side names: `ours` is the msgx runner under test, `theirs` the system it is compared against.
 * A collection row `added` is one only msgx has; `removed`, one only the other system has.
 */

/** A flight in the `/all/flights` shape (`FlightPayload`), read loosely: the other system may add top-level keys. */
export interface ComparableFlight {
  readonly flid: string;
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly collections?: Readonly<Record<string, readonly ComparableRow[] | null | undefined>>;
  readonly [key: string]: unknown;
}

/** A collection row: its natural key (`GTNO`, `RTNO`, `DELY`'s `@CODE`, …) and its values. */
export interface ComparableRow {
  readonly key: string;
  readonly values?: Readonly<Record<string, unknown>>;
}

/**
 * What belongs to each system rather than to the flight, so it differs between two correct
 * systems: the payload's schema version, the flight's version counter, the mailbox id and DTTM
 * of the last message that changed it. `--ignore` adds to this list.
 */
export const COMPARISON_IGNORED_BY_DEFAULT = ["schemaVersion", "stateVersion", "lastMsgId", "lastSrcDttm"] as const;

/**
 * One difference. `path` names what differs: a top-level key (`ffid`, `operationDay`, `deleted`),
 * `fields.<NAME>`, or `collections.<NAME>`. An absent value is an absent key (`ours`/`theirs`
 * left out), apart from a stated `null`.
 */
export type FlightDifference =
  /** The flight is on one side only. */
  | { readonly flid: string; readonly kind: "missing"; readonly path: "flight"; readonly missingFrom: "ours" | "theirs" }
  /** A scalar (or a whole collection stated empty on one side and absent on the other). */
  | { readonly flid: string; readonly kind: "field"; readonly path: string; readonly ours?: unknown; readonly theirs?: unknown }
  /** A collection row only msgx has (`added`), only the other has (`removed`), or with other values (`changed`). */
  | {
      readonly flid: string;
      readonly kind: "row";
      readonly path: string;
      readonly key: string;
      readonly change: "added" | "removed" | "changed";
      /** The row's values on each side (absent where the row is absent). */
      readonly ours?: Readonly<Record<string, unknown>>;
      readonly theirs?: Readonly<Record<string, unknown>>;
      /** For `changed`: the names of the values that differ. */
      readonly values?: readonly string[];
    };

export interface FlightComparison {
  /** True when no difference was found. */
  readonly agree: boolean;
  readonly flights: { readonly ours: number; readonly theirs: number; readonly both: number; readonly differing: number };
  /** The list in force: the defaults plus `--ignore`. */
  readonly ignored: readonly string[];
  /** How many differences per `path` (`flight` for missing flights). */
  readonly byPath: Readonly<Record<string, number>>;
  /** By FLID (numerically), then path, then row key. */
  readonly differences: readonly FlightDifference[];
}

/**
 * What `--ignore` may name: a top-level key, `fields.<NAME>`, `collections.<NAME>`, or one value of
 * a collection's rows, `collections.<NAME>.<VALUE>`. Returns the problem, or undefined when valid.
 */
export function ignoreEntryProblem(entry: string): string | undefined {
  return /^[A-Za-z][A-Za-z0-9_]*$|^fields\.[^.\s]+$|^collections\.[^.\s]+(\.[^.\s]+)?$/.test(entry)
    ? undefined
    : `cannot ignore "${entry}": name a top-level key (lastMsgId), fields.<NAME>, collections.<NAME> or collections.<NAME>.<VALUE>`;
}

/** Compares two whole flight lists; `ignore` extends {@link COMPARISON_IGNORED_BY_DEFAULT}. */
export function compareFlights(ours: Iterable<ComparableFlight>, theirs: Iterable<ComparableFlight>, ignore: readonly string[] = []): FlightComparison {
  const ignored = [...new Set([...COMPARISON_IGNORED_BY_DEFAULT, ...ignore])];
  const skip = new Set(ignored);
  const a = byFlid(ours);
  const b = byFlid(theirs);
  const differences: FlightDifference[] = [];
  let both = 0;
  const differingFlids = new Set<string>();
  for (const flid of [...new Set([...a.keys(), ...b.keys()])].sort(compareRowKeys)) {
    const x = a.get(flid);
    const y = b.get(flid);
    const found: FlightDifference[] = [];
    if (!x || !y) found.push({ flid, kind: "missing", path: "flight", missingFrom: x ? "theirs" : "ours" });
    else {
      both++;
      diffFlight(flid, x, y, skip, found);
    }
    if (found.length > 0) differingFlids.add(flid);
    differences.push(...found);
  }
  const byPath: Record<string, number> = {};
  for (const d of differences) byPath[d.path] = (byPath[d.path] ?? 0) + 1;
  return { agree: differences.length === 0, flights: { ours: a.size, theirs: b.size, both, differing: differingFlids.size }, ignored, byPath, differences };
}

function byFlid(flights: Iterable<ComparableFlight>): Map<string, ComparableFlight> {
  const m = new Map<string, ComparableFlight>();
  // A flight served twice (it moved between pages while they were read) counts once, as last read.
  for (const f of flights) m.set(f.flid, f);
  return m;
}

function diffFlight(flid: string, x: ComparableFlight, y: ComparableFlight, skip: ReadonlySet<string>, out: FlightDifference[]): void {
  for (const key of sortedUnion(x, y)) {
    if (key === "flid" || key === "fields" || key === "collections" || skip.has(key)) continue;
    pushField(flid, key, x, y, key, out);
  }
  if (!skip.has("fields")) {
    const fx = x.fields ?? {};
    const fy = y.fields ?? {};
    for (const name of sortedUnion(fx, fy)) if (!skip.has(`fields.${name}`)) pushField(flid, `fields.${name}`, fx, fy, name, out);
  }
  if (!skip.has("collections")) {
    const cx = x.collections ?? {};
    const cy = y.collections ?? {};
    for (const name of sortedUnion(cx, cy)) if (!skip.has(`collections.${name}`)) diffCollection(flid, name, cx[name], cy[name], skip, out);
  }
}

function pushField(flid: string, path: string, x: Readonly<Record<string, unknown>>, y: Readonly<Record<string, unknown>>, key: string, out: FlightDifference[]): void {
  const hasX = Object.hasOwn(x, key) && x[key] !== undefined;
  const hasY = Object.hasOwn(y, key) && y[key] !== undefined;
  if (hasX === hasY && (!hasX || sameValue(x[key], y[key]))) return;
  out.push({ flid, kind: "field", path, ...(hasX ? { ours: x[key] } : {}), ...(hasY ? { theirs: y[key] } : {}) });
}

function diffCollection(
  flid: string,
  name: string,
  x: readonly ComparableRow[] | null | undefined,
  y: readonly ComparableRow[] | null | undefined,
  skip: ReadonlySet<string>,
  out: FlightDifference[],
): void {
  const path = `collections.${name}`;
  const rowsX = x ?? [];
  const rowsY = y ?? [];
  // "Stated empty" against "not stated" has no row to tell it by: it is a difference of the collection itself.
  if (rowsX.length === 0 && rowsY.length === 0) {
    if ((x === undefined) !== (y === undefined) || (x === null) !== (y === null)) {
      out.push({ flid, kind: "field", path, ...(x !== undefined ? { ours: x } : {}), ...(y !== undefined ? { theirs: y } : {}) });
    }
    return;
  }
  const ignoredValues = new Set([...skip].filter((s) => s.startsWith(`${path}.`)).map((s) => s.slice(path.length + 1)));
  const values = (r: ComparableRow): Record<string, unknown> => {
    const v = r.values ?? {};
    if (ignoredValues.size === 0) return { ...v };
    return Object.fromEntries(Object.entries(v).filter(([k]) => !ignoredValues.has(k)));
  };
  const mx = new Map(rowsX.map((r) => [r.key, r]));
  const my = new Map(rowsY.map((r) => [r.key, r]));
  for (const key of [...new Set([...mx.keys(), ...my.keys()])].sort(compareRowKeys)) {
    const rx = mx.get(key);
    const ry = my.get(key);
    if (rx && !ry) out.push({ flid, kind: "row", path, key, change: "added", ours: values(rx) });
    else if (!rx && ry) out.push({ flid, kind: "row", path, key, change: "removed", theirs: values(ry) });
    else if (rx && ry) {
      const vx = values(rx);
      const vy = values(ry);
      const differing = sortedUnion(vx, vy).filter((k) => Object.hasOwn(vx, k) !== Object.hasOwn(vy, k) || !sameValue(vx[k], vy[k]));
      if (differing.length > 0) out.push({ flid, kind: "row", path, key, change: "changed", ours: vx, theirs: vy, values: differing });
    }
  }
}

function sortedUnion(x: object, y: object): string[] {
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
}

/** JSON equality: key order does not matter, array order does. */
function sameValue(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x)) {
    const ya = y as unknown[];
    return x.length === ya.length && x.every((v, i) => sameValue(v, ya[i]));
  }
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  return kx.length === ky.length && kx.every((k) => Object.hasOwn(y, k) && sameValue((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]));
}
