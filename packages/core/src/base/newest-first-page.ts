import type { CursorPage } from "./cursor-page.js";

/**
 * The page a history listing answers from `rows`: a key's entries newest first, those below the
 * caller's cursor only, read one past `limit` (so a full page knows whether an older one exists).
 * The first `limit` are the page under `key`; `next` is the oldest one's version when there are
 * more, the `before` of the page after it (the flight lineage's paging), else null.
 */
export function newestFirstPage<K extends string, T extends { readonly version: number }>(key: K, rows: readonly T[], limit: number): CursorPage<K, T, number> {
  const items = rows.slice(0, limit);
  const next = rows.length > limit && items.length > 0 ? items[items.length - 1]!.version : null;
  return { [key]: items, next } as CursorPage<K, T, number>;
}
