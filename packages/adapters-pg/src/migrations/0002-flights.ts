import type { Kysely, Migration } from "kysely";
import { collectionTableDdl } from "./collection-table-ddl.js";
import { runDdl } from "./ddl.js";

/** Written out, not derived from core: a migration must not change when the schema table does. */
const COLLECTION_TABLES = [
  "flight_rout",
  "flight_erut",
  "flight_psdt",
  "flight_gtdt",
  "flight_ckdt",
  "flight_cldt",
  "flight_chdt",
  "flight_dely",
  "flight_chot",
];

/**
 * Flight state. Scalars are one jsonb object keyed by schema name (absent = unknown, JSON null =
 * cleared); the ones queries filter on are also generated columns. `collections_known` names the
 * collections that were ever stated: a known collection with no rows is cleared (`[]`), an
 * unknown one is absent.
 */
const UP = [
  `CREATE TABLE flight_schd (
    flid              text        PRIMARY KEY,
    ffid              text,
    operation_day     text        CHECK (operation_day ~ '^[0-9]{8}$'),
    state_version     bigint      NOT NULL,
    last_msg_id       bigint      NOT NULL,
    last_src_dttm     text        NOT NULL,
    deleted           boolean     NOT NULL DEFAULT false,
    scalars           jsonb       NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(scalars) = 'object'),
    collections_known text[]      NOT NULL DEFAULT '{}'
      CHECK (collections_known <@ ARRAY['ROUT','ERUT','PSDT','GTDT','CKDT','CLDT','CHDT','DELY','CHOT']),
    alcd              text        GENERATED ALWAYS AS (scalars ->> 'ALCD') STORED,
    flno              text        GENERATED ALWAYS AS (scalars ->> 'FLNO') STORED,
    mvin              text        GENERATED ALWAYS AS (scalars ->> 'MVIN') STORED,
    sodt              text        GENERATED ALWAYS AS (scalars ->> 'SODT') STORED,
    updated_at        timestamptz NOT NULL
  )`,
  // The history sweep retires flights by operation day.
  `CREATE INDEX flight_schd_operation_day_idx ON flight_schd (operation_day)`,
  // Look-ups by flight number and schedule time (read API, operators).
  `CREATE INDEX flight_schd_flno_idx ON flight_schd (alcd, flno, sodt)`,
  ...COLLECTION_TABLES.map(collectionTableDdl),
  `CREATE TABLE schd_snap_log (
    snap_id       bigserial   PRIMARY KEY,
    msg_id        bigint      NOT NULL,
    styp          text        NOT NULL,
    operation_day text,
    declared_recs integer,
    flights       integer     NOT NULL,
    outcome       text        NOT NULL,
    reason        text,
    logged_at     timestamptz NOT NULL
  )`,
  // Kept 90 days: the purge deletes by time.
  `CREATE INDEX schd_snap_log_logged_at_idx ON schd_snap_log (logged_at)`,
];

const DOWN = ["DROP TABLE schd_snap_log", ...COLLECTION_TABLES.map((t) => `DROP TABLE ${t}`), "DROP TABLE flight_schd"];

export const flightsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
