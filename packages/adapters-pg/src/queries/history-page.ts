import { sql, type QueryExecutorProvider, type RawBuilder } from "kysely";
import type { LineageQuery } from "@msgx/core";

/**
 * The rows of one key's history (a `<key column>, version` primary key) for a page newest first:
 * those below `query.beforeVersion`, descending, one past `query.limit` (what `newestFirstPage`
 * needs to tell whether an older page exists). A backward range of the primary key.
 */
export async function historyPageRows<R>(db: QueryExecutorProvider, table: string, keyColumn: string, key: string, columns: RawBuilder<unknown>, query: LineageQuery): Promise<R[]> {
  const below = query.beforeVersion === undefined ? sql`` : sql`AND version < ${query.beforeVersion}::integer`;
  const { rows } = await sql<R>`
    SELECT ${columns} FROM ${sql.table(table)}
    WHERE ${sql.ref(keyColumn)} = ${key} ${below}
    ORDER BY version DESC LIMIT ${query.limit + 1}::integer`.execute(db);
  return rows;
}
