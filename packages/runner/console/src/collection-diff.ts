import type { FieldChange } from "./api-types.js";

/** One row of a flight's collection as published: its key and its values (`docs/events.md`). */
export interface CollectionRow {
  readonly key: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** What changed in one collection, row by row (rows matched by key). */
export interface CollectionDiff {
  readonly added: readonly CollectionRow[];
  readonly removed: readonly CollectionRow[];
  readonly changed: readonly { readonly key: string; readonly changes: readonly { readonly name: string; readonly before?: unknown; readonly after?: unknown }[] }[];
}

const rowsOf = (v: unknown): CollectionRow[] | undefined =>
  Array.isArray(v) && v.every((r) => typeof r === "object" && r !== null && typeof (r as CollectionRow).key === "string" && typeof (r as CollectionRow).values === "object")
    ? (v as CollectionRow[])
    : undefined;

/**
 * A collection change (`collections.<NAME>`, compared whole by the lineage) as rows added,
 * removed and changed, each changed row with its values before → after (a value absent on one
 * side is left out there, as in a field diff). Undefined when either side is not a list of rows.
 */
export function collectionDiff(change: FieldChange): CollectionDiff | undefined {
  const before = change.before === undefined || change.before === null ? [] : rowsOf(change.before);
  const after = change.after === undefined || change.after === null ? [] : rowsOf(change.after);
  if (!change.field.startsWith("collections.") || before === undefined || after === undefined) return undefined;
  const old = new Map(before.map((r) => [r.key, r]));
  const now = new Map(after.map((r) => [r.key, r]));
  const changed: CollectionDiff["changed"][number][] = [];
  for (const row of after) {
    const was = old.get(row.key);
    if (was === undefined) continue;
    const names = [...Object.keys(row.values), ...Object.keys(was.values).filter((n) => !(n in row.values))];
    const changes = names.flatMap((name) => {
      const b = was.values[name];
      const a = row.values[name];
      return JSON.stringify(b) === JSON.stringify(a) ? [] : [{ name, ...(b !== undefined ? { before: b } : {}), ...(a !== undefined ? { after: a } : {}) }];
    });
    if (changes.length > 0) changed.push({ key: row.key, changes });
  }
  return { added: after.filter((r) => !old.has(r.key)), removed: before.filter((r) => !now.has(r.key)), changed };
}
