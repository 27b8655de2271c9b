/**
 * The state-table idiom of STYLE.md 2, in one place. A table of states maps each name to itself,
 * so callers write `ProcStatus.PENDING` and the stored or wire value is the name:
 *
 * ```ts
 * export const ProcStatus = states("PENDING", "FAILED", "SUCCEEDED", "SKIPPED", "DEAD");
 * export type ProcStatus = ValueOf<typeof ProcStatus>;
 * ```
 *
 * The doc block above the table says, state by state, how it is entered and left. A table whose
 * values are not its names (wire values, step names) stays an `as const` object literal and
 * derives its union with {@link ValueOf} the same way.
 */
export function states<const N extends string>(...names: readonly N[]): { readonly [K in N]: K } {
  return Object.fromEntries(names.map((n) => [n, n])) as { readonly [K in N]: K };
}

/** The union of a table's values: `ValueOf<typeof ProcStatus>` is `"PENDING" | … | "DEAD"`. */
export type ValueOf<T> = T[keyof T];
