import type { ColumnType } from "kysely";

/** `bigint` as a driver gives it (node-postgres: string; PGlite: number); written as a number. */
export type Int8 = ColumnType<string | number, number, number>;

/** `timestamptz`: read as a Date, written as a Date (exact to the millisecond). */
export type Timestamp = ColumnType<Date, Date, Date>;

/**
 * `jsonb`: read parsed. msgx writes it as JSON text cast in the statement (`${json(v)}::jsonb`),
 * so the write side is a string.
 */
export type Jsonb = ColumnType<unknown, string, string>;
