import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * Registered as `0007_maintenance`. Flight history for the daily sweep, and the index the
 * PROC_STATE archive selects by. (`proc_state_hst` and `schd_snap_log` exist since 0001/0002.)
 */
const UP = [
  // One row per retirement: a FLID stated again after it retired lives and retires again.
  `CREATE TABLE flight_schd_hst (
    hst_id            bigserial   PRIMARY KEY,
    flid              text        NOT NULL,
    operation_day     text        NOT NULL CHECK (operation_day ~ '^[0-9]{8}$'),
    state_version     bigint      NOT NULL,
    deleted           boolean     NOT NULL,
    tombstone_version bigint,
    last_msg_id       bigint      NOT NULL,
    final_state       jsonb       NOT NULL CHECK (jsonb_typeof(final_state) = 'object'),
    retired_at        timestamptz NOT NULL,
    CHECK ((tombstone_version IS NULL) = deleted)
  )`,
  // Look-ups by FLID (operators; the last version of a retired FLID).
  `CREATE INDEX flight_schd_hst_flid_idx ON flight_schd_hst (flid, hst_id)`,
  // The archive takes the oldest terminal records first: one probe, however many are live, and
  // it stops at once when the oldest is still too young. Holds terminal rows only.
  `CREATE INDEX proc_state_terminal_age_idx ON proc_state (updated_at, msg_id) WHERE status IN ('SUCCEEDED','SKIPPED','DEAD')`,
];

const DOWN = ["DROP INDEX proc_state_terminal_age_idx", "DROP TABLE flight_schd_hst"];

export const maintenanceMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
