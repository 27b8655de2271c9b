import { MsgxError } from "@msgx/core";
import type { CompiledQuery } from "kysely";

/**
 * A compiled statement with its parameters written in as literals, for a message of several
 * statements (the simple protocol takes no parameters). Only for statements whose text holds no
 * `$n` of its own (no dollar quoting): every placeholder is replaced.
 */
export function inlineParameters(query: CompiledQuery): string {
  return query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= query.parameters.length) throw new MsgxError("INFRA", `inline SQL: no parameter $${n}`);
    return sqlLiteral(query.parameters[index]);
  });
}

/**
 * A value as a PostgreSQL literal: strings as escape strings (`E'…'`, so the result does not
 * depend on `standard_conforming_strings`), arrays as `ARRAY[…]` (empty: `'{}'`, typed by the cast
 * the statement puts after it), objects as their JSON text.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new MsgxError("INFRA", `inline SQL: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return quote(value);
  if (value instanceof Date) return quote(value.toISOString());
  if (Array.isArray(value)) return value.length === 0 ? "'{}'" : `ARRAY[${value.map(sqlLiteral).join(", ")}]`;
  return quote(JSON.stringify(value));
}

const quote = (text: string): string => {
  if (text.includes("\0")) throw new MsgxError("INFRA", "inline SQL: a text value holds a NUL character");
  return `E'${text.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
};
