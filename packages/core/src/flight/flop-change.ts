import type { CollectionRow, WireValue } from "../model/flight-record.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";
import type { FlopBlock, StandRowElement, StandRowSpec } from "../model/flop-block.js";
import { STAND_ROW_ELEMENTS } from "../model/flop-block.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import type { FlopGroup } from "../model/flop-matrix.js";

/** The switches of the FLOP rules that are our choices (see `FlightProcessingOptions`). */
export type FlopRuleOptions = Pick<FlightProcessingOptions, "flopEmptyCollection" | "flopRequiredEmpty">;

/** PSDT row fields one stand-row element sets on the rows whose `PSST` is `stand`. */
export interface StandRowChange {
  readonly element: StandRowElement;
  readonly stand: string;
  readonly values: Readonly<Record<string, WireValue>>;
}

/**
 * What one FLOP block changes on its flight, read from the block alone (so a fault is found
 * before any flight is touched). Applied by `applyFlopChange`.
 */
export interface FlopChange {
  /** Scalars set to a value or cleared (`null`); those not named are left as they are. */
  readonly scalars: Readonly<Partial<Record<ScalarName, WireValue>>>;
  /** Collections whose rows are the whole new set (`[]` clears it). */
  readonly replace: Readonly<Partial<Record<CollectionName, readonly CollectionRow[]>>>;
  /** Collections whose rows are merged in by key. */
  readonly merge: Readonly<Partial<Record<CollectionName, readonly CollectionRow[]>>>;
  readonly standRows: readonly StandRowChange[];
}

export type FlopRead = { readonly ok: true; readonly change: FlopChange } | { readonly ok: false; readonly fault: string };

/**
 * Row parts a FLOP row must carry beyond its key, which the codec already requires (ERUT RTNO,
 * DELY CODE, SRVT SRTC): WIRE.md "FLOP subtypes", collection. A row lacking one is PROTOCOL.
 */
const REQUIRED_ROW_PARTS: Readonly<Partial<Record<CollectionName, readonly string[]>>> = {
  ERUT: ["APCD"],
  SRVT: ["SRQT"],
};

class FlopFault extends Error {}

const fault = (reason: string): never => {
  throw new FlopFault(reason);
};

/** A matrix entry its group's rule cannot read: a defect of the table, not of the message. */
const matrixDefect = (reason: string): never => {
  throw new Error(`FLOP matrix: ${reason}`);
};

const scalarChange = (scalars: Partial<Record<ScalarName, WireValue>>): FlopChange => ({ scalars, replace: {}, merge: {}, standRows: [] });

const allOf = (names: readonly ScalarName[], value: WireValue): Partial<Record<ScalarName, WireValue>> =>
  Object.fromEntries(names.map((n) => [n, value]));

/** Each name stated as sent, absent ones cleared. */
const statedOrCleared = (block: FlopBlock, names: readonly ScalarName[]): Partial<Record<ScalarName, WireValue>> =>
  Object.fromEntries(names.map((n) => [n, block.scalars[n] ?? null]));

const nameOf = (names: readonly ScalarName[], i: number): ScalarName => names[i] ?? matrixDefect(`no field ${i}`);

function readPlain(group: FlopGroup, block: FlopBlock, options: FlopRuleOptions): FlopChange {
  const name = nameOf(group.scalars, 0);
  const value = block.scalars[name];
  if (value === undefined) return fault(`${name} absent`);
  if (value === null && group.required === true && options.flopRequiredEmpty === "reject") return fault(`${name} empty, but a flight must keep one`);
  return scalarChange({ [name]: value });
}

function readExss(group: FlopGroup, block: FlopBlock): FlopChange {
  const [exsc, exsr] = [nameOf(group.scalars, 0), nameOf(group.scalars, 1)];
  const status = block.scalars[exsc];
  if (status === undefined) return fault(`${exsc} absent`);
  // (ours) A new status without its reason clears the old reason: it explained another status.
  return scalarChange(status === null ? allOf(group.scalars, null) : { [exsc]: status, [exsr]: block.scalars[exsr] ?? null });
}

function readTaop(group: FlopGroup, block: FlopBlock): FlopChange {
  const values = group.scalars.map((n) => block.scalars[n]);
  if (values.includes(null) || values.every((v) => v === undefined)) return scalarChange(allOf(group.scalars, null));
  return scalarChange(statedOrCleared(block, group.scalars));
}

function readPort(group: FlopGroup, block: FlopBlock): FlopChange {
  // The codec refuses a PORT without a valid POID; a door no PORT element names is left as it is.
  const stated = group.scalars.filter((n) => block.scalars[n] !== undefined);
  if (stated.length === 0) return fault("PORT absent (no POID)");
  return scalarChange(statedOrCleared(block, stated));
}

const shown = (v: WireValue | undefined): string => (typeof v === "string" ? JSON.stringify(v) : v === null ? "empty" : "absent");

/**
 * FDIV: no diversion (all cleared) when the element is absent or empty or DDES is empty; an absent
 * DDES reads as an empty one, as upstream's DOM reads it. With an airport, DDIR must be TO|FROM.
 */
function readFdiv(group: FlopGroup, block: FlopBlock): FlopChange {
  const ddes = block.scalars["FDIV@DDES"];
  if (typeof ddes !== "string") return scalarChange(allOf(group.scalars, null));
  const ddir = block.scalars["FDIV@DDIR"];
  if (ddir !== "TO" && ddir !== "FROM") return fault(`FDIV to ${JSON.stringify(ddes)} with DDIR ${shown(ddir)}, not TO|FROM`);
  return scalarChange(statedOrCleared(block, group.scalars));
}

/** FRET: cleared when absent or empty (no REID, no text); REID alone is a return without reason. */
function readFret(group: FlopGroup, block: FlopBlock): FlopChange {
  const reid = block.scalars["FRET@REID"];
  const reason = block.scalars.FRET;
  if ((reid === null || reid === undefined) && (reason === null || reason === undefined)) return scalarChange(allOf(group.scalars, null));
  if (reid !== "A" && reid !== "G") return fault(`FRET REID ${shown(reid)}, not A|G`);
  return scalarChange(statedOrCleared(block, group.scalars));
}

/** FLAB: cleared when absent, empty or `ARES=""`; a reason without ARES, or ARES not O|G, is PROTOCOL. */
function readFlab(group: FlopGroup, block: FlopBlock): FlopChange {
  const ares = block.scalars["FLAB@ARES"];
  if (ares === null || (ares === undefined && block.scalars.FLAB === undefined)) return scalarChange(allOf(group.scalars, null));
  if (ares !== "O" && ares !== "G") return fault(`FLAB ARES ${shown(ares)}, not O|G`);
  return scalarChange(statedOrCleared(block, group.scalars));
}

/** Collections whose clearing by an empty element is our choice (upstream refuses it). */
const CLEARED_BY_CHOICE = (group: FlopGroup, name: CollectionName): boolean => group.group === "replace" || name === "VIPF";

function readCollection(group: FlopGroup, block: FlopBlock, options: FlopRuleOptions): FlopChange {
  const [name, ...nested] = group.collections;
  if (name === undefined) return matrixDefect("no collection");
  const rows = block.collections[name];
  if (rows === undefined) return fault(`${name} absent (no rows)`);
  if (rows.length === 0) {
    if (options.flopEmptyCollection === "reject" && CLEARED_BY_CHOICE(group, name)) return fault(`${name} empty (clearing it is refused)`);
    // One empty element clears the set, and with it the rows nested in its rows.
    return { scalars: {}, replace: Object.fromEntries(group.collections.map((n) => [n, []])), merge: {}, standRows: [] };
  }
  for (const row of rows) {
    for (const part of REQUIRED_ROW_PARTS[name] ?? []) {
      if (typeof row.values[part] !== "string") fault(`${name}[${row.key}] without ${part}`);
    }
  }
  const stated = Object.fromEntries([name, ...nested].map((n) => [n, block.collections[n] ?? []]));
  return group.group === "replace"
    ? { scalars: {}, replace: stated, merge: {}, standRows: [] }
    : { scalars: {}, replace: {}, merge: stated, standRows: [] };
}

function readStandRows(styp: string, block: FlopBlock): FlopChange {
  if (!Object.hasOwn(STAND_ROW_ELEMENTS, styp)) return matrixDefect(`${styp} is not a stand-row element`);
  const element = styp as StandRowElement;
  const spec: StandRowSpec = STAND_ROW_ELEMENTS[element];
  const statements = block.standRows?.[element] ?? [];
  if (statements.length === 0) return fault(`${element} absent (no rows)`);
  const standRows = statements.map(({ values }): StandRowChange => {
    const stand = values[spec.stand];
    if (typeof stand !== "string") return fault(`${element} without ${spec.stand}`);
    const fields = Object.keys(spec.fields);
    const cleared = values[spec.time] === null || values[spec.time] === undefined;
    return { element, stand, values: Object.fromEntries(fields.map((f) => [f, cleared ? null : (values[f] ?? null)])) };
  });
  return { scalars: {}, replace: {}, merge: {}, standRows };
}

/**
 * Reads what a FLOP block of subtype `styp` (in group `group` of the matrix) changes, by its
 * group's absent/empty rule (see {@link FlopGroupName}), or the PROTOCOL fault that refuses the
 * message. Only the group's elements are read; the rest of the block is ignored.
 */
export function readFlopChange(styp: string, group: FlopGroup, block: FlopBlock, options: FlopRuleOptions): FlopRead {
  try {
    return { ok: true, change: readGroup(styp, group, block, options) };
  } catch (e) {
    if (e instanceof FlopFault) return { ok: false, fault: e.message };
    throw e;
  }
}

function readGroup(styp: string, group: FlopGroup, block: FlopBlock, options: FlopRuleOptions): FlopChange {
  switch (group.group) {
    case "time":
    case "perField":
      return scalarChange(statedOrCleared(block, group.scalars));
    case "plain":
      return readPlain(group, block, options);
    case "exss":
      return readExss(group, block);
    case "taop":
      return readTaop(group, block);
    case "port":
      return readPort(group, block);
    case "fdiv":
      return readFdiv(group, block);
    case "fret":
      return readFret(group, block);
    case "flab":
      return readFlab(group, block);
    case "replace":
    case "merge":
      return readCollection(group, block, options);
    case "standRow":
      return readStandRows(styp, block);
    case "delete":
      return matrixDefect("FDEL is its own kind, never read as a FLOP block");
  }
}
