import { MsgxError } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import type { Db } from "./db.js";

/**
 * One data-modifying CTE (`name AS (INSERT … | UPDATE … | DELETE …)`) of a combined write. Parts
 * on different tables run as one statement, one round trip, with the effects of a statement:
 * atomic, every part seeing the snapshot the statement started with (none sees another's rows).
 */
export interface WritePart {
  /** Unique within a statement; a SQL identifier. */
  readonly name: string;
  /**
   * The CTE body, without the name: a data-modifying statement (with `expectRows`, ending in
   * `RETURNING 1`), or a plain SELECT later parts of the same statement read.
   */
  readonly body: RawBuilder<unknown>;
  /** The rows the part must write; otherwise the statement fails with `INFRA` and this message. */
  readonly expectRows?: { readonly count: number; readonly shortfall: (written: number) => string };
}

/**
 * Runs `parts` as one statement (nothing when there are none). Two parts must not touch the same
 * row: PostgreSQL leaves the outcome of that undefined, so callers keep such writes in separate
 * statements.
 */
export async function executeParts(db: Db, parts: readonly WritePart[]): Promise<void> {
  if (parts.length === 0) return;
  const ctes = parts.map((p) => sql`${sql.ref(p.name)} AS (${p.body})`);
  const counted = parts.filter((p) => p.expectRows !== undefined);
  const select =
    counted.length === 0
      ? sql`SELECT 1`
      : sql`SELECT ${sql.join(counted.map((p) => sql`(SELECT count(*) FROM ${sql.ref(p.name)})::int AS ${sql.ref(p.name)}`))}`;
  const { rows } = await sql<Record<string, number>>`WITH ${sql.join(ctes)} ${select}`.execute(db);
  for (const p of counted) {
    const written = Number(rows[0]?.[p.name] ?? 0);
    if (written !== p.expectRows!.count) {
      throw new MsgxError("INFRA", p.expectRows!.shortfall(written));
    }
  }
}
