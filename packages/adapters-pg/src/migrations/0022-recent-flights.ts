import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * `FlightReader.recent` (the console's recently changed flights): the flights by the message that
 * made their current version, newest first, FLIDs of one message in the "C" collation — read
 * along this index in the answer's order, so the limit ends the scan.
 */
const UP = [`CREATE INDEX flight_schd_recent_idx ON flight_schd (last_msg_id DESC, flid COLLATE "C")`];

const DOWN = ["DROP INDEX flight_schd_recent_idx"];

export const recentFlightsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
