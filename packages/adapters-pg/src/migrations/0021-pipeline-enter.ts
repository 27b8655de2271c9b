import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/** The SQLSTATE `msgx_pipeline_enter` raises for a stale fence; `pg-error-map` maps it to FENCED. */
export const STALE_FENCE_SQLSTATE = "MXF01";

/**
 * `msgx_pipeline_enter`: the pipeline lock, the epoch read under it (a new statement of a VOLATILE
 * function, so a fresh snapshot: an epoch bumped while we waited is seen) and the fence check, in
 * one call. A pipeline transaction sends it in the same simple-protocol round trip as its BEGIN,
 * whose results the driver does not hand back: hence the check here rather than in the client.
 * A NULL fence only locks.
 */
const UP = [
  `CREATE FUNCTION msgx_pipeline_enter(lock_class integer, lock_obj integer, fence bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $fn$
    DECLARE current_epoch bigint;
    BEGIN
      PERFORM pg_advisory_xact_lock(lock_class, lock_obj);
      SELECT coalesce(max(epoch), 0) INTO current_epoch FROM leadership WHERE name = 'pipeline';
      IF fence IS NOT NULL AND fence <> current_epoch THEN
        RAISE EXCEPTION 'fence % is stale (epoch %)', fence, current_epoch USING ERRCODE = '${STALE_FENCE_SQLSTATE}';
      END IF;
      RETURN current_epoch;
    END
  $fn$`,
];

const DOWN = [`DROP FUNCTION msgx_pipeline_enter(integer, integer, bigint)`];

export const pipelineEnterMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
