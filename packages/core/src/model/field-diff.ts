/** One field that differs between two versions of a published value. */
export interface FieldChange {
  /** Dotted path into the value (`departure.gate`); an array is one field, compared whole. */
  readonly field: string;
  /** The value before, `undefined` when the field was absent (JSON: the key is left out). */
  readonly before?: unknown;
  /** The value after, `undefined` when the field is gone. */
  readonly after?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The fields that differ between two JSON values (a flight's or reference entry's published
 * payload), in the order of `after`'s keys, then the fields only `before` had. Objects are
 * compared key by key; arrays (a flight's collections) and scalars as whole values, so a changed
 * collection row shows as its collection. `before` undefined or null (a first version) lists every
 * field of `after`; `after` null (a tombstone) lists every field of `before` as gone.
 */
export function fieldDiff(before: unknown, after: unknown, prefix = ""): FieldChange[] {
  if (isRecord(before) || isRecord(after)) {
    const b = isRecord(before) ? before : {};
    const a = isRecord(after) ? after : {};
    if (prefix !== "" && (!isRecord(before) || !isRecord(after)) && before !== undefined && after !== undefined) {
      return sameJson(before, after) ? [] : [change(prefix, before, after)];
    }
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    return keys.flatMap((k) => fieldDiff(b[k], a[k], prefix === "" ? k : `${prefix}.${k}`));
  }
  return sameJson(before, after) ? [] : [change(prefix, before, after)];
}

function change(field: string, before: unknown, after: unknown): FieldChange {
  return { field, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
