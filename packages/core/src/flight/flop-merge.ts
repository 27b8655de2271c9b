import type { CollectionRow, WireValue } from "../model/flight-record.js";
import { collectionSpec } from "../model/flight-schema.js";
import type { CollectionName, ScalarName } from "../model/flight-schema.js";
import { STAND_ROW_FIELDS } from "../model/flop-block.js";
import type { MessageWarning } from "../processing/processor.js";
import { canonicalContent, type FlightContent } from "./flight-content.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import type { FlopChange, StandRowChange } from "./flop-change.js";

type Collections = Partial<Record<CollectionName, readonly CollectionRow[]>>;

/**
 * PSDT replace (ours, `psdtKeepsStandRowFields`): a new row with the key and stand (`PSST`) of a
 * stored row keeps the push and tractor values (`STAND_ROW_FIELDS`) that PSHT/TIPT set on it,
 * unless it states them itself: the stand plan is re-sent whole, the push did not stop having
 * happened.
 */
function keepStandRowFields(rows: readonly CollectionRow[], before: readonly CollectionRow[] | undefined): CollectionRow[] {
  const old = new Map((before ?? []).map((r) => [r.key, r]));
  return rows.map((row) => {
    const was = old.get(row.key);
    if (was === undefined || typeof row.values.PSST !== "string" || was.values.PSST !== row.values.PSST) return row;
    const kept: Record<string, WireValue> = {};
    for (const f of STAND_ROW_FIELDS) {
      const value = was.values[f];
      if (row.values[f] === undefined && value !== undefined) kept[f] = value;
    }
    return { key: row.key, values: { ...row.values, ...kept } };
  });
}

/** The key of the parent row a nested row belongs to: nested keys are `<parent key>/<own key>`. */
const parentKeyOf = (key: string): string => key.slice(0, key.lastIndexOf("/"));

/**
 * Merge by key: a stated key replaces the stored row of that key or is added; other stored rows
 * stay. Nested rows (VIPT) instead replace all stored rows of each parent row that states any:
 * a VIP stated with its services has exactly those; one stated without keeps its own.
 */
function mergeRows(name: CollectionName, rows: readonly CollectionRow[], before: readonly CollectionRow[] | undefined): CollectionRow[] {
  const stored = before ?? [];
  if (collectionSpec(name).parent !== undefined) {
    const parents = new Set(rows.map((r) => parentKeyOf(r.key)));
    return [...stored.filter((r) => !parents.has(parentKeyOf(r.key))), ...rows];
  }
  const keys = new Set(rows.map((r) => r.key));
  return [...stored.filter((r) => !keys.has(r.key)), ...rows];
}

/**
 * Sets the fields of a stand-row change on every PSDT row of its stand; a warning if there is none
 * (a flight with no stand plan keeps none, unstated rather than cleared).
 */
function applyStandRow(rows: readonly CollectionRow[] | undefined, change: StandRowChange, flid: string, warnings: MessageWarning[]): readonly CollectionRow[] | undefined {
  if (rows === undefined || !rows.some((r) => r.values.PSST === change.stand)) {
    warnings.push({ code: "no-stand-row", detail: `FLID ${flid}: ${change.element} for stand ${change.stand} matches no PSDT row; ignored` });
    return rows;
  }
  return rows.map((r) => (r.values.PSST === change.stand ? { key: r.key, values: { ...r.values, ...change.values } } : r));
}

/**
 * Applies a FLOP block's change (see `readFlopChange`) to a flight's content: scalars set or
 * cleared, collections replaced or merged, stand-row fields set on PSDT rows. `ffid`,
 * `operationDay` and `deleted` are left to the caller. The result is canonical; `warnings` say
 * what was ignored (a stand-row element for a stand with no PSDT row: `no-stand-row`).
 */
export function applyFlopChange(
  content: FlightContent,
  change: FlopChange,
  flid: string,
  options: Pick<FlightProcessingOptions, "psdtKeepsStandRowFields">,
): { content: FlightContent; warnings: MessageWarning[] } {
  const scalars: Partial<Record<ScalarName, WireValue>> = { ...content.scalars, ...change.scalars };
  const collections: Collections = { ...content.collections };
  for (const [name, rows] of Object.entries(change.replace) as [CollectionName, readonly CollectionRow[]][]) {
    collections[name] = name === "PSDT" && options.psdtKeepsStandRowFields ? keepStandRowFields(rows, content.collections.PSDT) : rows;
  }
  for (const [name, rows] of Object.entries(change.merge) as [CollectionName, readonly CollectionRow[]][]) {
    collections[name] = mergeRows(name, rows, content.collections[name]);
  }
  const warnings: MessageWarning[] = [];
  for (const standRow of change.standRows) {
    const rows = applyStandRow(collections.PSDT, standRow, flid, warnings);
    if (rows !== undefined) collections.PSDT = rows;
  }
  return { content: canonicalContent({ ...content, scalars, collections }), warnings };
}
