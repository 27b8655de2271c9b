import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * Reference data in the upstream layout (WIRE.md "Reference data"): `ref_master.fields` holds a
 * record's typed fields (strings, Y/N flags as booleans, repeated children as arrays, `ABBR` by
 * code), no longer every child as text; `version` counts the changes of a key (deletes included),
 * the version its reference events carry. Rows written before keep their old field shape and
 * version 1 until a message of their type changes them (a DNLD rewrites the whole type).
 */
const UP = [`ALTER TABLE ref_master RENAME COLUMN attributes TO fields`, `ALTER TABLE ref_master ADD COLUMN version integer NOT NULL DEFAULT 1`];

const DOWN = [`ALTER TABLE ref_master DROP COLUMN version`, `ALTER TABLE ref_master RENAME COLUMN fields TO attributes`];

export const referenceDataMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
