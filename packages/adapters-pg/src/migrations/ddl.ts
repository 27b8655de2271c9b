import { sql, type Kysely } from "kysely";

/**
 * Runs DDL statements one by one (PGlite's extended protocol takes one statement per query) with
 * the target schema first on the search path for the rest of the migration transaction.
 */
export async function runDdl(db: Kysely<unknown>, schema: string, statements: readonly string[]): Promise<void> {
  await sql`SET LOCAL search_path TO ${sql.id(schema)}`.execute(db);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
