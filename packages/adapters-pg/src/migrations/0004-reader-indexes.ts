import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * For the read API (`FlightReader.list`: FLIDs in numeric order, keyset paging, optional
 * operation-day filter): FLIDs are decimal ids (1–18 digits, what the codec accepts), so they
 * cast to bigint; one index serves the day filter, the numeric order and the history sweep's
 * day range, and replaces the plain day index.
 */
const UP = [
  `ALTER TABLE flight_schd ADD CONSTRAINT flight_schd_flid_decimal CHECK (flid ~ '^[0-9]{1,18}$')`,
  `CREATE INDEX flight_schd_flid_order_idx ON flight_schd ((flid::bigint), flid)`,
  `CREATE INDEX flight_schd_day_flid_idx ON flight_schd (operation_day, (flid::bigint), flid)`,
  `DROP INDEX flight_schd_operation_day_idx`,
];

const DOWN = [
  `CREATE INDEX flight_schd_operation_day_idx ON flight_schd (operation_day)`,
  `DROP INDEX flight_schd_day_flid_idx`,
  `DROP INDEX flight_schd_flid_order_idx`,
  `ALTER TABLE flight_schd DROP CONSTRAINT flight_schd_flid_decimal`,
];

export const readerIndexesMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
