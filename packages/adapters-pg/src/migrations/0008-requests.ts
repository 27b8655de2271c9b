import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * What the request coordinator and reply matching need beyond migration 0003 (registered as
 * `0008_requests`): the full lifecycle of a request on `req_track` (its wire text and META, send
 * attempts, pick-up, how it was closed and the match audit), our SEQN counter per SNDR, and the
 * code-point index the reference listing pages on.
 */
const UP = [
  `ALTER TABLE req_track
    ADD COLUMN version         integer     NOT NULL DEFAULT 1,
    ADD COLUMN kind            text        NOT NULL DEFAULT 'RQFD' CHECK (kind IN ('RQFD','RQRD')),
    ADD COLUMN rtype           text,
    ADD COLUMN range_from      text,
    ADD COLUMN range_to        text,
    ADD COLUMN sndr            text        NOT NULL DEFAULT '',
    ADD COLUMN seqn            bigint      NOT NULL DEFAULT 0,
    ADD COLUMN dttm            text        NOT NULL DEFAULT '',
    ADD COLUMN routing_id      text        NOT NULL DEFAULT '',
    ADD COLUMN raw_xml         text        NOT NULL DEFAULT '',
    ADD COLUMN requested_by    text        NOT NULL DEFAULT '',
    ADD COLUMN send_attempts   integer     NOT NULL DEFAULT 0,
    ADD COLUMN last_attempt_at timestamptz,
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN last_error      text,
    ADD COLUMN picked_up_at    timestamptz,
    ADD COLUMN close_reason    text        CHECK (close_reason IN ('answered','timeout','superseded')),
    ADD COLUMN reply_dttm      text,
    ADD COLUMN reply_at        timestamptz,
    ADD COLUMN match_detail    text`,
  `ALTER TABLE req_track ADD CONSTRAINT req_track_match_mode_check CHECK (match_mode IN ('exact','fallback'))`,
  `CREATE TABLE req_counter (
    sndr      text   PRIMARY KEY,
    last_seqn bigint
  )`,
  `CREATE INDEX ref_master_list_idx ON ref_master (rtype, rkey COLLATE "C")`,
];

const DOWN = [
  "DROP INDEX ref_master_list_idx",
  "DROP TABLE req_counter",
  "ALTER TABLE req_track DROP CONSTRAINT req_track_match_mode_check",
  `ALTER TABLE req_track DROP COLUMN version, DROP COLUMN kind, DROP COLUMN rtype, DROP COLUMN range_from, DROP COLUMN range_to,
    DROP COLUMN sndr, DROP COLUMN seqn, DROP COLUMN dttm, DROP COLUMN routing_id, DROP COLUMN raw_xml, DROP COLUMN requested_by,
    DROP COLUMN send_attempts, DROP COLUMN last_attempt_at, DROP COLUMN next_attempt_at, DROP COLUMN last_error,
    DROP COLUMN picked_up_at, DROP COLUMN close_reason, DROP COLUMN reply_dttm, DROP COLUMN reply_at, DROP COLUMN match_detail`,
];

export const requestsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
