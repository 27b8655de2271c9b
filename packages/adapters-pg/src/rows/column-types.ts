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

/**
 * A table's row as a raw query returns it: text columns as typed, every other column `unknown`
 * (numbers, bigints, timestamps and JSON differ between node-postgres and PGlite), for the row
 * mappers to convert.
 */
export type DriverRow<Table> = { [K in keyof Table]: Table[K] extends string | null ? Table[K] : unknown };
