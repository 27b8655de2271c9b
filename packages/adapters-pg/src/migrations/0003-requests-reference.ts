import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/** Upstream requests (SPEC §2.6) and reference data. */
const UP = [
  `CREATE TABLE req_track (
    req_id        bigserial   PRIMARY KEY,
    req_type      text        NOT NULL,
    status        text        NOT NULL CHECK (status IN ('REGISTERED','SENT','WAITING','DONE','EXPIRED')),
    echo          jsonb       NOT NULL DEFAULT '{}'::jsonb,
    outbound_id   bigint,
    registered_at timestamptz NOT NULL,
    sent_at       timestamptz,
    deadline_at   timestamptz,
    closed_at     timestamptz,
    reply_msg_id  bigint,
    match_mode    text
  )`,
  // One open request per type, enforced by the database.
  `CREATE UNIQUE INDEX req_track_open_idx ON req_track (req_type) WHERE status IN ('REGISTERED','SENT','WAITING')`,
  `CREATE TABLE ref_master (
    rtype       text        NOT NULL,
    rkey        text        NOT NULL,
    attributes  jsonb       NOT NULL,
    deleted     boolean     NOT NULL DEFAULT false,
    last_msg_id bigint      NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (rtype, rkey)
  )`,
];

const DOWN = ["DROP TABLE ref_master", "DROP TABLE req_track"];

export const requestsReferenceMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
