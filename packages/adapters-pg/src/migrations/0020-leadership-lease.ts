import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * Pipeline leadership as a lease (issue 24, docs/ha.md "Leadership lease"): `leadership.lease_until`
 * is when the holder's lease ends by the database clock; NULL (never granted, released, or an
 * epoch bumped without a lease, as the embedded runner does) means free. The epoch stays the fence.
 */
const UP = [`ALTER TABLE leadership ADD COLUMN lease_until timestamptz`];

const DOWN = [`ALTER TABLE leadership DROP COLUMN lease_until`];

export const leadershipLeaseMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
