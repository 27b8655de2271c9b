import type { Kysely, Migration } from "kysely";
import { collectionTableDdl } from "./collection-table-ddl.js";
import { runDdl } from "./ddl.js";

/** Written out, not derived from core: a migration must not change when the schema table does. */
const NEW_TABLES = ["flight_abtm", "flight_srvt", "flight_vipf", "flight_vipt"];

const KNOWN_BEFORE = `ARRAY['ROUT','ERUT','PSDT','GTDT','CKDT','CLDT','CHDT','DELY','CHOT']`;
const KNOWN_AFTER = `ARRAY['ROUT','ERUT','PSDT','GTDT','CKDT','CLDT','CHDT','DELY','CHOT','ABTM','SRVT','VIPF','VIPT']`;

/** The name PostgreSQL gave the column CHECK of 0002_flights. */
const KNOWN_CHECK = "flight_schd_collections_known_check";

/**
 * The collections WIRE.md adds (airbridge use, services, VIPs and their services), one table each
 * in the shape of 0002's: keyed by (FLID, key), rows as jsonb, gone with their flight. The
 * `collections_known` CHECK widens to name them.
 */
const UP = [
  ...NEW_TABLES.map(collectionTableDdl),
  `ALTER TABLE flight_schd DROP CONSTRAINT ${KNOWN_CHECK}`,
  `ALTER TABLE flight_schd ADD CONSTRAINT ${KNOWN_CHECK} CHECK (collections_known <@ ${KNOWN_AFTER})`,
];

const DOWN = [
  `ALTER TABLE flight_schd DROP CONSTRAINT ${KNOWN_CHECK}`,
  `ALTER TABLE flight_schd ADD CONSTRAINT ${KNOWN_CHECK} CHECK (collections_known <@ ${KNOWN_BEFORE})`,
  ...NEW_TABLES.map((t) => `DROP TABLE ${t}`),
];

export const flightCollectionsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
