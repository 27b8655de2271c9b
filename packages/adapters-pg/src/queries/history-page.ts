import { sql, type QueryExecutorProvider, type RawBuilder } from "kysely";
import { newestFirstPage, type CursorPage, type LineageQuery } from "@msgx/core";

/** A history table keyed by `(<keyColumn>, version)`: its select list and how a row becomes an entry. */
export interface HistoryTable<R, E extends { readonly version: number }> {
  readonly table: string;
  readonly keyColumn: string;
  readonly columns: RawBuilder<unknown>;
  entryOf(row: R): E;
}

/** A history row's times as epoch ms: `first_at` is NULL for a single change, whose first time is its `at`. */
export function historyTimes(row: { readonly at: Date; readonly firstAt: Date | null }): { readonly at: number; readonly firstAt: number } {
  const at = new Date(row.at).getTime();
  return { at, firstAt: row.firstAt === null ? at : new Date(row.firstAt).getTime() };
}

/** Every entry of one key, oldest first (a primary-key range). */
export async function historyOf<R, E extends { readonly version: number }>(db: QueryExecutorProvider, t: HistoryTable<R, E>, key: string): Promise<E[]> {
  const { rows } = await sql<R>`SELECT ${t.columns} FROM ${sql.table(t.table)} WHERE ${sql.ref(t.keyColumn)} = ${key} ORDER BY version`.execute(db);
  return rows.map((r) => t.entryOf(r));
}

/**
 * One page of a key's entries, newest first: those below `query.beforeVersion`, read one past
 * `query.limit` so `newestFirstPage` knows whether an older page exists (a backward primary-key range).
 */
export async function historyPageOf<R, E extends { readonly version: number }>(db: QueryExecutorProvider, t: HistoryTable<R, E>, key: string, query: LineageQuery): Promise<CursorPage<"entries", E, number>> {
  const below = query.beforeVersion === undefined ? sql`` : sql`AND version < ${query.beforeVersion}::integer`;
  const { rows } = await sql<R>`
    SELECT ${t.columns} FROM ${sql.table(t.table)}
    WHERE ${sql.ref(t.keyColumn)} = ${key} ${below}
    ORDER BY version DESC LIMIT ${query.limit + 1}::integer`.execute(db);
  return newestFirstPage("entries", rows.map((r) => t.entryOf(r)), query.limit);
}
